//! The vocabulary of MCP authorization (OAuth 2.1 as the authorization pages profile it): the
//! HTTP fields and challenge parameters of RFC 6750, RFC 9110 and RFC 9728, the error codes a
//! resource server and an authorization server answer with, the well-known URI suffixes of
//! RFC 9728 and RFC 8414 (and OpenID Connect Discovery), and the metadata members a client reads.

/// HTTP header fields.
pub mod header {
    /// The challenge a 401 (and an insufficient-scope 403) carries (RFC 9110 §11.6.1).
    pub const WWW_AUTHENTICATE: &str = "WWW-Authenticate";
    /// The credentials a request carries (RFC 9110 §11.6.2).
    pub const AUTHORIZATION: &str = "Authorization";
    /// A DPoP proof (RFC 9449).
    pub const DPOP: &str = "DPoP";
    /// Where a redirect points (RFC 9110 §10.2.2).
    pub const LOCATION: &str = "Location";
}

/// Authentication schemes (compared case-insensitively).
pub mod scheme {
    /// OAuth bearer tokens (RFC 6750).
    pub const BEARER: &str = "Bearer";
    /// DPoP-bound tokens (RFC 9449).
    pub const DPOP: &str = "DPoP";
    /// HTTP Basic, as client_secret_basic uses it at a token endpoint (RFC 7617).
    pub const BASIC: &str = "Basic";
}

/// Parameters of a Bearer challenge (RFC 6750 §3, RFC 9728 §5.1); names compare
/// case-insensitively.
pub mod param {
    /// The URL of the protected resource metadata (RFC 9728 §5.1).
    pub const RESOURCE_METADATA: &str = "resource_metadata";
    /// The scopes the resource needs (RFC 6750 §3).
    pub const SCOPE: &str = "scope";
    /// The error code (RFC 6750 §3.1).
    pub const ERROR: &str = "error";
    /// A human-readable explanation of the error (RFC 6750 §3).
    pub const ERROR_DESCRIPTION: &str = "error_description";
}

/// Error codes of a resource server's challenge (RFC 6750 §3.1).
pub mod error {
    /// The token is expired, revoked, malformed or invalid: HTTP 401.
    pub const INVALID_TOKEN: &str = "invalid_token";
    /// The token lacks scope the request needs: HTTP 403.
    pub const INSUFFICIENT_SCOPE: &str = "insufficient_scope";
}

/// The access token as a URI query parameter (RFC 6750 §2.3), which MCP forbids.
pub const ACCESS_TOKEN_QUERY: &str = "access_token";

/// Well-known URI suffixes (RFC 8615), inserted after the authority and before the path.
pub mod well_known {
    /// The prefix every well-known URI path starts with.
    pub const PREFIX: &str = "/.well-known/";
    /// Protected resource metadata (RFC 9728 §3).
    pub const PROTECTED_RESOURCE: &str = "oauth-protected-resource";
    /// OAuth 2.0 authorization server metadata (RFC 8414 §3).
    pub const AUTHORIZATION_SERVER: &str = "oauth-authorization-server";
    /// OpenID Connect Discovery 1.0 provider configuration.
    pub const OPENID_CONFIGURATION: &str = "openid-configuration";
}

/// Members of the protected resource metadata (RFC 9728 §2).
pub mod prm {
    /// The resource identifier.
    pub const RESOURCE: &str = "resource";
    /// The issuers of the authorization servers that serve the resource.
    pub const AUTHORIZATION_SERVERS: &str = "authorization_servers";
    /// The scopes the resource uses.
    pub const SCOPES_SUPPORTED: &str = "scopes_supported";
}

/// Members of the authorization server metadata (RFC 8414 §2, RFC 9207 §3, OpenID Connect
/// Discovery, the Client ID Metadata Document draft).
pub mod asm {
    /// The issuer identifier.
    pub const ISSUER: &str = "issuer";
    /// Where the user agent is sent to authorize.
    pub const AUTHORIZATION_ENDPOINT: &str = "authorization_endpoint";
    /// Where codes, refresh tokens and client credentials are exchanged for tokens.
    pub const TOKEN_ENDPOINT: &str = "token_endpoint";
    /// Where clients register dynamically (RFC 7591).
    pub const REGISTRATION_ENDPOINT: &str = "registration_endpoint";
    /// The PKCE methods the server accepts (RFC 7636).
    pub const CODE_CHALLENGE_METHODS: &str = "code_challenge_methods_supported";
    /// How clients may authenticate at the token endpoint.
    pub const TOKEN_AUTH_METHODS: &str = "token_endpoint_auth_methods_supported";
    /// The grant types the server accepts.
    pub const GRANT_TYPES: &str = "grant_types_supported";
    /// The scopes the server knows.
    pub const SCOPES_SUPPORTED: &str = "scopes_supported";
    /// Whether authorization responses carry `iss` (RFC 9207 §3).
    pub const ISS_PARAMETER_SUPPORTED: &str = "authorization_response_iss_parameter_supported";
    /// Whether a URL may be the client id (Client ID Metadata Documents).
    pub const CLIENT_ID_METADATA_DOCUMENT_SUPPORTED: &str = "client_id_metadata_document_supported";
}

/// The PKCE method MCP clients must use (RFC 7636 §4.2).
pub const PKCE_S256: &str = "S256";

/// The scope a client adds to ask for a refresh token (OpenID Connect Core §11).
pub const OFFLINE_ACCESS: &str = "offline_access";
