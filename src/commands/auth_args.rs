//! The authorization flags of the commands that speak to a protected server (`probe`): how the
//! OAuth client registers, which grant and scopes it uses, how the user agent step happens.

use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::oauth::{GrantKind, OAuthConfig, UserAgent};

/// The environment variable a client secret may come from instead of the command line (where
/// other users of the machine can read it).
pub const CLIENT_SECRET_ENV: &str = "MCP_VERDICT_CLIENT_SECRET";

/// How a 401 is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuthorizeMode {
    /// Open the system browser on the authorization URL and catch the redirect on a loopback
    /// listener.
    Browser,
    /// Follow the authorization endpoint's redirects without a browser (servers that authorize
    /// without a person: test servers, CI).
    Follow,
    /// Do not authorize: report the 401 as it is.
    Off,
}

/// The OAuth grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GrantArg {
    /// Authorization code with PKCE, on behalf of a user.
    AuthorizationCode,
    /// Client credentials, on the client's own behalf (needs --client-id and a secret).
    ClientCredentials,
}

/// Authorization flags.
#[derive(Debug, Clone, Args)]
pub struct AuthArgs {
    /// How to answer a server that asks for authorization (401): open a browser, follow the
    /// authorization endpoint's redirects without one, or not at all.
    #[arg(long, value_enum, default_value_t = AuthorizeMode::Browser, help_heading = "Authorization")]
    pub authorize: AuthorizeMode,

    /// A pre-registered OAuth client id (instead of registering dynamically).
    #[arg(long, value_name = "ID", help_heading = "Authorization")]
    pub client_id: Option<String>,

    /// The pre-registered client's secret (or set MCP_VERDICT_CLIENT_SECRET).
    #[arg(long, value_name = "SECRET", help_heading = "Authorization")]
    pub client_secret: Option<String>,

    /// The issuer the pre-registered client belongs to: another authorization server is not
    /// sent its credentials.
    #[arg(long, value_name = "URL", help_heading = "Authorization")]
    pub client_issuer: Option<String>,

    /// This client's Client ID Metadata Document URL, used as its client id by authorization
    /// servers that support such documents.
    #[arg(long, value_name = "URL", help_heading = "Authorization")]
    pub client_metadata_url: Option<String>,

    /// Scopes to request (space-separated) instead of the challenged or advertised ones.
    #[arg(long, value_name = "SCOPES", help_heading = "Authorization")]
    pub scope: Option<String>,

    /// The OAuth grant.
    #[arg(long, value_enum, default_value_t = GrantArg::AuthorizationCode, help_heading = "Authorization")]
    pub grant: GrantArg,

    /// The redirect URI (default: a loopback one, http://127.0.0.1:PORT/callback).
    #[arg(long, value_name = "URL", help_heading = "Authorization")]
    pub redirect_uri: Option<String>,
}

impl AuthArgs {
    /// The OAuth client's configuration; `None` with `--authorize off`.
    pub fn to_config(&self, deadline: Duration) -> Result<Option<OAuthConfig>, String> {
        if self.authorize == AuthorizeMode::Off {
            return Ok(None);
        }
        let client_secret = self.client_secret.clone().or_else(|| {
            std::env::var(CLIENT_SECRET_ENV)
                .ok()
                .filter(|s| !s.is_empty())
        });
        let grant = match self.grant {
            GrantArg::AuthorizationCode => GrantKind::AuthorizationCode,
            GrantArg::ClientCredentials => GrantKind::ClientCredentials,
        };
        if grant == GrantKind::ClientCredentials
            && (self.client_id.is_none() || client_secret.is_none())
        {
            return Err(format!(
                "--grant client-credentials needs --client-id and --client-secret (or {CLIENT_SECRET_ENV})"
            ));
        }
        Ok(Some(OAuthConfig {
            client_id: self.client_id.clone(),
            client_secret,
            client_issuer: self.client_issuer.clone(),
            client_metadata_url: self.client_metadata_url.clone(),
            scope: self.scope.clone(),
            grant,
            user_agent: match self.authorize {
                AuthorizeMode::Follow => UserAgent::Follow,
                _ => UserAgent::Browser,
            },
            redirect_uri: self.redirect_uri.clone(),
            browser_timeout: deadline,
            ..OAuthConfig::default()
        }))
    }
}
