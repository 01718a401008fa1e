use aep_sdk::prelude::*;

#[derive(serde::Deserialize)]
struct Point {
    x: i32,
    y: i32,
}

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    /// Adds the coordinates.
    #[tool]
    async fn sum(&self, point: Point) -> String {
        (point.x + point.y).to_string()
    }
}

fn main() {}
