//! [`Connections`]: the open connections by id, shared by every request.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use axum::http::StatusCode;

use crate::connection::{ConnectRequest, Connection};
use crate::error::{ApiError, codes};
use crate::oauth::Session;

/// The open connections.
#[derive(Debug, Default)]
pub struct Connections {
    next: AtomicU64,
    open: RwLock<BTreeMap<u64, Arc<Connection>>>,
}

impl Connections {
    /// Opens a connection (see [`Connection::open`]; with the tokens of `signed_in`, when
    /// no token is typed in) and keeps it.
    pub async fn connect(
        &self,
        request: &ConnectRequest,
        signed_in: Option<&Session>,
    ) -> Result<Arc<Connection>, ApiError> {
        let number = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let connection = Arc::new(Connection::open(format!("c{number}"), request, signed_in).await?);
        self.open
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(number, connection.clone());
        Ok(connection)
    }

    /// The connection `id`, or `connection_not_found`.
    pub fn get(&self, id: &str) -> Result<Arc<Connection>, ApiError> {
        let found = number(id).and_then(|n| {
            self.open
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .get(&n)
                .cloned()
        });
        found.ok_or_else(|| not_found(id))
    }

    /// Every open connection, oldest first.
    pub fn list(&self) -> Vec<Arc<Connection>> {
        self.open
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect()
    }

    /// Closes connection `id` (its MCP sessions too).
    pub async fn close(&self, id: &str) -> Result<(), ApiError> {
        let removed =
            number(id).and_then(|n| self.open.write().unwrap_or_else(|p| p.into_inner()).remove(&n));
        let connection = removed.ok_or_else(|| not_found(id))?;
        connection.close().await;
        Ok(())
    }
}

impl Connections {
    /// Closes every connection that uses sign-in `session`; their ids.
    pub async fn close_signed_in(&self, session: &str) -> Vec<String> {
        let ids: Vec<String> = self
            .list()
            .iter()
            .filter(|c| c.sign_in() == Some(session))
            .map(|c| c.id.clone())
            .collect();
        for id in &ids {
            let _ = self.close(id).await;
        }
        ids
    }
}

fn number(id: &str) -> Option<u64> {
    id.strip_prefix('c')?.parse().ok()
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        codes::CONNECTION_NOT_FOUND,
        format!("no open connection '{id}': connect to the extension again"),
    )
}
