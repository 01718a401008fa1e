//! `fake-openai --listen ADDR`: the stand-in as a process (default `127.0.0.1:0`); prints
//! `listening on http://HOST:PORT` once it accepts connections.

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mut listen = "127.0.0.1:0".to_owned();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--listen" => listen = args.next().expect("--listen ADDR"),
            other => panic!("unknown argument {other} (usage: fake-openai [--listen ADDR])"),
        }
    }
    let fake = fake_openai::Fake::start_on(&listen).await;
    println!("listening on {}", fake.base_url);
    std::future::pending::<()>().await;
}
