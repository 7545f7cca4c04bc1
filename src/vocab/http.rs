//! HTTP vocabulary: reason phrases and the media types MCP's Streamable HTTP transport uses.

/// The media type of a single JSON-RPC message body.
pub const JSON: &str = "application/json";
/// The media type of a Server-Sent Events response stream.
pub const EVENT_STREAM: &str = "text/event-stream";
/// The media type of a plain-text body (refusals that carry no JSON-RPC message).
pub const TEXT_PLAIN: &str = "text/plain; charset=utf-8";

/// The reason phrase of an HTTP status code (RFC 9110), or its class for codes without a
/// well-known phrase.
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => match status / 100 {
            2 => "Success",
            3 => "Redirection",
            4 => "Client Error",
            _ => "Server Error",
        },
    }
}
