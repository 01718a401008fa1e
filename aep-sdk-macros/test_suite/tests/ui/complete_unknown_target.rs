use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[prompt]
    async fn trip(&self, city: String) -> String {
        city
    }

    #[resource(uri_template = "cities://{city}")]
    async fn city(&self, city: String) -> String {
        city
    }

    #[complete(prompt = "voyage", argument = "city")]
    async fn no_such_prompt(&self, value: String) -> Vec<String> {
        vec![value]
    }

    #[complete(prompt = "trip", argument = "town")]
    async fn no_such_argument(&self, value: String) -> Vec<String> {
        vec![value]
    }

    #[complete(template = "cities://{city}", variable = "country")]
    async fn no_such_variable(&self, value: String) -> Vec<String> {
        vec![value]
    }
}

fn main() {}
