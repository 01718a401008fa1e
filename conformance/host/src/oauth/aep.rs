//! A [`SignIn`] as the canonical AEP client's [`TokenSource`]: an extension's AEP routes
//! get the token, and their 401/403 challenges start the sign-in.

use aep_sdk::client::{Challenge, TokenSource};
use futures::future::BoxFuture;

use super::sign_in::SignIn;

impl TokenSource for SignIn {
    fn token(&self) -> BoxFuture<'_, Option<String>> {
        Box::pin(async move { self.access_token().await.map(|t| t.expose().to_owned()) })
    }

    fn challenged<'a>(&'a self, challenge: Challenge<'a>) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            SignIn::challenged(
                self,
                challenge.status.as_u16(),
                challenge.www_authenticate,
                challenge.sent_token,
            )
            .await
            .map_err(|e| e.message)
        })
    }
}
