//! Precedence bands (`[[band]]`) and the `precedence = { band, rank }` of outcome rules.

use toml::Spanned;

use super::doc::{Ctx, PrecedenceDoc};
use super::{Docs, LoadError};
use crate::rules::{Band, Precedence};

pub(super) fn load_bands(docs: &Docs<'_>) -> Result<Vec<Band>, LoadError> {
    let mut bands: Vec<Band> = Vec::new();
    for (file, text, doc) in docs {
        let cx = Ctx { file, text };
        for b in &doc.band {
            let name = b.name.get_ref().trim();
            if bands.iter().any(|x| x.name == name) {
                return Err(cx.at(
                    b.name.span(),
                    format!("band `{name}` is defined twice; keep one"),
                ));
            }
            bands.push(Band {
                name: name.to_string(),
                about: b.about.trim().to_string(),
            });
        }
    }
    Ok(bands)
}

fn band_names(bands: &[Band]) -> String {
    bands
        .iter()
        .map(|b| format!("`{}`", b.name))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn precedence(
    cx: &Ctx<'_>,
    p: &Spanned<PrecedenceDoc>,
    bands: &[Band],
) -> Result<Precedence, LoadError> {
    match p.get_ref() {
        PrecedenceDoc::Band { band, rank } => {
            let index = bands.iter().position(|b| &b.name == band).ok_or_else(|| {
                cx.at(
                    p.span(),
                    format!(
                        "unknown precedence band `{band}`; the bands are, first to decide first: {} (see rules/bands.toml)",
                        band_names(bands)
                    ),
                )
            })?;
            Ok(Precedence {
                band: index,
                rank: *rank,
            })
        }
        PrecedenceDoc::Number(n) => Err(cx.at(
            p.span(),
            format!(
                "precedence is a band and a rank within it, e.g. precedence = {{ band = \"envelope\", rank = 3 }}, not a number ({n}); the bands are, first to decide first: {}",
                band_names(bands)
            ),
        )),
    }
}
