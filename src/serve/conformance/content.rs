//! What the fixture tools return that needs no client: text, a 1x1 PNG, a short WAV tone,
//! embedded resources.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use crate::serve::reply::{Reply, decorate, deliver, result_msg};
use crate::serve::shared::Shared;
use crate::vocab::Protocol;

/// A 1x1 red PNG (8-bit RGB), base64.
pub(super) const PNG_1X1_RED: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// A WAV file: 0.1 s of a 440 Hz square wave, 8 kHz, mono, 8-bit PCM.
fn wav_tone() -> Vec<u8> {
    let rate: u32 = 8_000;
    let samples: Vec<u8> = (0..rate / 10)
        .map(|i| {
            if (i * 440 * 2 / rate).is_multiple_of(2) {
                160
            } else {
                96
            }
        })
        .collect();
    let data_len = samples.len() as u32;
    let mut w = Vec::with_capacity(44 + samples.len());
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + data_len).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&rate.to_le_bytes());
    w.extend_from_slice(&rate.to_le_bytes()); // byte rate: 1 byte per sample
    w.extend_from_slice(&1u16.to_le_bytes()); // block align
    w.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    w.extend_from_slice(b"data");
    w.extend_from_slice(&data_len.to_le_bytes());
    w.extend_from_slice(&samples);
    w
}

pub(super) fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

pub(super) fn image_block() -> Value {
    json!({"type": "image", "data": PNG_1X1_RED, "mimeType": "image/png"})
}

fn content_result(content: Vec<Value>, is_error: bool) -> Map<String, Value> {
    Map::from_iter([
        ("content".to_string(), Value::Array(content)),
        ("isError".into(), Value::Bool(is_error)),
    ])
}

/// Results of the tools that need nothing from the client.
pub(super) fn plain_result(name: &str, args: &Value) -> Option<Map<String, Value>> {
    let m = match name {
        "test_simple_text" => content_result(
            vec![text_block("This is a simple text response for testing.")],
            false,
        ),
        "test_image_content" => content_result(vec![image_block()], false),
        "test_audio_content" => content_result(
            vec![
                json!({"type": "audio", "data": STANDARD.encode(wav_tone()), "mimeType": "audio/wav"}),
            ],
            false,
        ),
        "test_embedded_resource" => content_result(
            vec![json!({"type": "resource", "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content."
            }})],
            false,
        ),
        "test_multiple_content_types" => content_result(
            vec![
                text_block("Multiple content types test:"),
                image_block(),
                json!({"type": "resource", "resource": {
                    "uri": "test://mixed-content-resource",
                    "mimeType": "application/json",
                    "text": json!({"test": "data", "value": 123}).to_string()
                }}),
            ],
            false,
        ),
        "test_error_handling" => content_result(
            vec![text_block(
                "This tool intentionally returns an error for testing",
            )],
            true,
        ),
        "test_header_param" => content_result(
            vec![text_block(&format!(
                "Region: {}",
                args["region"].as_str().unwrap_or_default()
            ))],
            false,
        ),
        "json_schema_2020_12_tool" => content_result(
            vec![text_block(&format!("Contact received: {args}"))],
            false,
        ),
        _ => return None,
    };
    Some(m)
}

/// A complete result as a reply.
pub(super) fn complete(shared: &Shared, rev: Protocol, id: &Value, m: Map<String, Value>) -> Reply {
    deliver(
        shared,
        rev,
        200,
        result_msg(id, decorate(rev, m)),
        Vec::new(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_is_real() {
        let png = STANDARD.decode(PNG_1X1_RED).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 1);
        let wav = wav_tone();
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        assert_eq!(
            u32::from_le_bytes(wav[4..8].try_into().unwrap()) as usize,
            wav.len() - 8
        );
    }
}
