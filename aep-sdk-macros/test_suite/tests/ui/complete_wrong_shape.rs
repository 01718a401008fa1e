use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[prompt]
    async fn trip(&self, city: String) -> String {
        city
    }

    #[complete(prompt = "trip", variable = "city")]
    async fn mixed_keys(&self, value: String) -> Vec<String> {
        vec![value]
    }

    #[complete(prompt = "trip", argument = "city")]
    async fn two_values(&self, value: String, other: String) -> Vec<String> {
        vec![value, other]
    }
}

fn main() {}
