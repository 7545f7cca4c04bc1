//! The vocabulary of verdicts: outcomes, layers, severities, requirement levels and actors.
//!
//! Outcome names are a contract (SCREAMING_SNAKE_CASE strings other tools parse); the eight
//! from the seed document keep the seed's meaning.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strum::{AsRefStr, Display, EnumIter, EnumString, IntoStaticStr};

/// The layer of an exchange that an outcome or finding belongs to.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Display,
    EnumString,
    EnumIter,
    AsRefStr,
    IntoStaticStr,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[strum(serialize_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// HTTP status, headers, Content-Type.
    Transport,
    /// Turning body bytes into JSON-RPC messages: JSON parsing, SSE events, stream completeness.
    Framing,
    /// The JSON-RPC envelope and the MCP result or error it carries.
    Protocol,
    /// Multi-step interactions: `input_required`, tasks.
    Interaction,
    /// The tool itself: `isError`.
    Application,
}

/// What a conforming client should conclude about one tools/call exchange.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Display,
    EnumString,
    EnumIter,
    AsRefStr,
    IntoStaticStr,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Outcome {
    /// A final `CallToolResult` with `isError` false or absent.
    ToolSuccess,
    /// A final `CallToolResult` with `isError: true`: the tool ran and reported a failure.
    ToolError,
    /// `resultType: "input_required"` (or 2025-11-25's URL elicitation error): not finished,
    /// the client must gather input and send a follow-up request.
    InputRequired,
    /// The server accepted the call as a task; the result is fetched later.
    TaskCreated,
    /// The HTTP status is not 2xx.
    HttpError,
    /// A 2xx answer whose body is neither `application/json` nor `text/event-stream`.
    UnexpectedContentType,
    /// A 2xx answer with no body (e.g. 202, 204) to a request: no JSON-RPC response was delivered.
    NoResponse,
    /// The body is not well-formed JSON (or not UTF-8).
    MalformedJson,
    /// The response stream ended (EOF, reset, timeout) before the response to this request.
    DeliveryUnknown,
    /// The body is JSON but not a valid JSON-RPC response to this request.
    InvalidEnvelope,
    /// A well-formed JSON-RPC error response.
    JsonrpcError,
    /// A result that is not a valid `CallToolResult` (or `InputRequiredResult`) for the revision.
    InvalidToolResult,
    /// The recorded request is not a `tools/call` request, so there is no tool result to judge.
    NotAToolCall,
    /// The request was a JSON-RPC notification and the server accepted it.
    NotificationAccepted,
    /// The body (or the SSE event that may carry the response) nests JSON deeper than the
    /// judge reads: not judged, and not malformed either.
    NestingTooDeep,
}

impl Outcome {
    /// The layer this outcome belongs to.
    pub fn layer(self) -> Layer {
        use Outcome::*;
        match self {
            HttpError | UnexpectedContentType | NoResponse | NotificationAccepted => {
                Layer::Transport
            }
            MalformedJson | DeliveryUnknown | NestingTooDeep => Layer::Framing,
            InvalidEnvelope | JsonrpcError | InvalidToolResult | NotAToolCall => Layer::Protocol,
            InputRequired | TaskCreated => Layer::Interaction,
            ToolSuccess | ToolError => Layer::Application,
        }
    }

    /// The outcome's wire name, e.g. `TOOL_SUCCESS`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// One sentence on what a client should conclude.
    pub fn meaning(self) -> &'static str {
        use Outcome::*;
        match self {
            ToolSuccess => "the tool ran and returned its final result",
            ToolError => {
                "the tool ran and reported a failure in its result (isError: true); give the text to the model"
            }
            InputRequired => {
                "the call is not finished: gather the requested input and send a follow-up request"
            }
            TaskCreated => "the call was accepted as a task; poll the task for its result",
            HttpError => "the HTTP exchange failed; no tool result was delivered",
            UnexpectedContentType => {
                "the body is neither application/json nor text/event-stream; no JSON-RPC response was delivered"
            }
            NoResponse => "the server accepted the POST but delivered no JSON-RPC response",
            MalformedJson => {
                "the body cannot be read as JSON (malformed, or not UTF-8); no response can be read from it"
            }
            DeliveryUnknown => {
                "the response stream ended before the response arrived: whether the tool ran is unknown"
            }
            InvalidEnvelope => "the body is not a valid JSON-RPC response to this request",
            JsonrpcError => {
                "the server rejected the call with a JSON-RPC error; the tool result is absent"
            }
            InvalidToolResult => "the result is not a valid tool result for this revision",
            NotAToolCall => {
                "the request is not a tools/call request; there is no tool result to judge"
            }
            NotificationAccepted => "the notification was accepted; notifications get no response",
            NestingTooDeep => {
                "the body nests JSON deeper than this judge reads, so it is not judged (which does not make it malformed); many JSON parsers refuse such a document too"
            }
        }
    }
}

/// How serious a finding is.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Display,
    EnumString,
    EnumIter,
    AsRefStr,
    IntoStaticStr,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[strum(serialize_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Informational: worth knowing, not a violation.
    Info,
    /// A SHOULD-level deviation or a likely problem.
    Warning,
    /// A MUST-level or schema violation.
    Error,
}

/// The force of the statement a rule encodes.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Display,
    EnumString,
    EnumIter,
    AsRefStr,
    IntoStaticStr,
    Serialize,
    Deserialize,
    JsonSchema,
)]
pub enum Level {
    /// BCP 14 MUST / REQUIRED / SHALL.
    #[strum(serialize = "MUST")]
    #[serde(rename = "MUST")]
    Must,
    /// BCP 14 MUST NOT.
    #[strum(serialize = "MUST NOT")]
    #[serde(rename = "MUST NOT")]
    MustNot,
    /// BCP 14 SHOULD / RECOMMENDED.
    #[strum(serialize = "SHOULD")]
    #[serde(rename = "SHOULD")]
    Should,
    /// BCP 14 SHOULD NOT.
    #[strum(serialize = "SHOULD NOT")]
    #[serde(rename = "SHOULD NOT")]
    ShouldNot,
    /// BCP 14 MAY / OPTIONAL.
    #[strum(serialize = "MAY")]
    #[serde(rename = "MAY")]
    May,
    /// A shape defined by the revision's schema.
    #[strum(serialize = "schema")]
    #[serde(rename = "schema")]
    Schema,
    /// A rule of JSON-RPC 2.0, which MCP adopts by reference.
    #[strum(serialize = "JSON-RPC")]
    #[serde(rename = "JSON-RPC")]
    JsonRpc,
    /// HTTP semantics (RFC 9110), which MCP relies on without restating.
    #[strum(serialize = "HTTP")]
    #[serde(rename = "HTTP")]
    Http,
    /// Descriptive spec text (no keyword) that still decides how a message is read.
    #[strum(serialize = "descriptive")]
    #[serde(rename = "descriptive")]
    Descriptive,
}

/// Who a rule binds.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Display,
    EnumString,
    EnumIter,
    AsRefStr,
    IntoStaticStr,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[strum(serialize_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    /// The MCP server answering the request.
    Server,
    /// The MCP client reading the answer.
    Client,
    /// A proxy or gateway between them.
    Intermediary,
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::IntoEnumIterator;

    #[test]
    fn seed_outcome_names_are_stable() {
        let names: Vec<&str> = Outcome::iter().map(Outcome::as_str).collect();
        for seed in [
            "TOOL_SUCCESS",
            "TOOL_ERROR",
            "INPUT_REQUIRED",
            "HTTP_ERROR",
            "JSONRPC_ERROR",
            "MALFORMED_JSON",
            "INVALID_ENVELOPE",
            "INVALID_TOOL_RESULT",
        ] {
            assert!(names.contains(&seed), "{seed} missing");
        }
        assert_eq!(
            serde_json::to_string(&Outcome::JsonrpcError).unwrap(),
            "\"JSONRPC_ERROR\""
        );
        assert_eq!("MUST NOT".parse::<Level>().unwrap(), Level::MustNot);
    }
}
