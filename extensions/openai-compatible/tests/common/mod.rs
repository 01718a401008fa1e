//! The test stand: the stand-in server, one of the three extensions in front of it on a
//! loopback port, and the canonical AEP client.
#![allow(dead_code)]

use std::time::Duration;

use aep_openai_compatible::config::{Tuning, UpstreamConfig};
use aep_openai_compatible::flavor::Flavor;
use aep_openai_compatible::llamacpp::LlamaCppExtension;
use aep_openai_compatible::localai::LocalAiExtension;
use aep_openai_compatible::openai::OpenAiExtension;
use aep_openai_compatible::upstream::Upstream;
use aep_sdk::client::{Client, ClientError};
use aep_sdk::protocol::{ChatRequest, ChatUpdate, Message};
use aep_sdk::testing::{TestServer, spawn};
use futures::StreamExt;

pub use fake_openai::Fake;

/// Upper bound of any single wait in these tests.
pub const BOUND: Duration = Duration::from_secs(10);

pub const FLAVORS: [Flavor; 3] = [Flavor::LlamaCpp, Flavor::LocalAi, Flavor::OpenAi];

pub struct Stand {
    pub fake: Fake,
    pub server: TestServer,
    pub client: Client,
    pub flavor: Flavor,
}

/// Short bounds so that fault tests end fast.
pub fn tuning(flavor: Flavor) -> Tuning {
    Tuning {
        connect_timeout: Duration::from_secs(1),
        first_byte_timeout: Duration::from_secs(3),
        idle_timeout: Duration::from_millis(800),
        probe_timeout: Duration::from_secs(2),
        stream_start_wait: Duration::from_secs(2),
        max_line_bytes: 1 << 20,
        include_usage: flavor == Flavor::OpenAi,
    }
}

/// The extension of `config`'s flavour, served on a loopback port.
pub async fn serve(config: UpstreamConfig) -> (TestServer, Client) {
    let extra = vec!["tools".to_owned()];
    let upstream = Upstream::new(config.clone(), extra).expect("client");
    let extension = match config.flavor {
        Flavor::LlamaCpp => aep_openai_compatible::build(LlamaCppExtension(upstream)),
        Flavor::LocalAi => aep_openai_compatible::build(LocalAiExtension(upstream)),
        Flavor::OpenAi => aep_openai_compatible::build(OpenAiExtension(upstream)),
    }
    .expect("a valid declaration");
    let server = spawn(extension.router()).await;
    let client = Client::builder(&server.base_url)
        .read_timeout(BOUND)
        .build()
        .expect("client");
    (server, client)
}

/// An extension in front of some other upstream (a real server).
pub struct Stand2 {
    pub server: TestServer,
    pub client: Client,
    pub flavor: Flavor,
}

pub async fn stand(flavor: Flavor) -> Stand {
    stand_with(flavor, |_| {}).await
}

pub async fn stand_with(flavor: Flavor, adjust: impl FnOnce(&mut UpstreamConfig)) -> Stand {
    let fake = Fake::start().await;
    let mut config = UpstreamConfig::new(flavor, &fake.base_url).expect("endpoint");
    config.tuning = tuning(flavor);
    adjust(&mut config);
    let (server, client) = serve(config).await;
    Stand {
        fake,
        server,
        client,
        flavor,
    }
}

impl Stand {
    pub fn provider(&self) -> &'static str {
        self.flavor.provider_id()
    }

    /// Every update of a streamed chat with `model`, bounded.
    pub async fn stream(&self, model: &str, text: &str) -> Result<Vec<ChatUpdate>, ClientError> {
        let request = ChatRequest::new(model, vec![Message::user(text)]);
        self.stream_request(&request).await
    }

    pub async fn stream_request(&self, request: &ChatRequest) -> Result<Vec<ChatUpdate>, ClientError> {
        let run = async {
            let mut stream = self.client.chat_stream(self.provider(), request).await?;
            let mut updates = Vec::new();
            while let Some(update) = stream.next().await {
                updates.push(update?);
            }
            Ok(updates)
        };
        tokio::time::timeout(BOUND, run)
            .await
            .expect("the stream ends within the bound")
    }
}
