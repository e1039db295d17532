//! `GET /openapi.json`: the service's OpenAPI description, generated from the routes'
//! annotations in `app.rs` and the types they name (`schemas.rs`, the library's reports,
//! citations and prompts). Nothing of it is written by hand. Made once, at start.

use utoipa::OpenApi;
use utoipa::openapi::{ObjectBuilder, Type};

use super::app;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "mentor-context",
        description = "Ranked retrieval results into the context of an LLM prompt, within an exact token budget, with citation chips; the whole prompt through the model's chat template."
    ),
    paths(
        app::assemble,
        app::cite,
        app::prompt,
        app::healthz,
        app::metrics,
        app::openapi_json
    )
)]
struct Description;

/// The description, as JSON, with the `profile` of every path the names this service has.
pub(crate) fn document<'a>(profiles: impl Iterator<Item = &'a str>) -> Vec<u8> {
    let names: Vec<&str> = profiles.collect();
    let mut description = Description::openapi();
    for item in description.paths.paths.values_mut() {
        for operation in [&mut item.post, &mut item.get].into_iter().flatten() {
            for parameter in operation.parameters.iter_mut().flatten() {
                if parameter.name == "profile" {
                    parameter.schema = Some(
                        ObjectBuilder::new()
                            .schema_type(Type::String)
                            .enum_values(Some(names.clone()))
                            .into(),
                    );
                }
            }
        }
    }
    let mut json = description.to_json().unwrap_or_default().into_bytes();
    json.push(b'\n');
    json
}
