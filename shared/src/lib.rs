//! `laika-shared`: the one definition of everything Laika's parts say to each other.
//!
//! The native host, the extension (compiled to WASM) and the tests all use this crate, so a
//! packet, a tool call or a policy rule means the same thing everywhere. It does no I/O (no
//! files, sockets, clocks or threads) and builds for `wasm32-unknown-unknown` and native.
//!
//! - [`packet`]: laika.llmcp v1 envelope, request and response, with [`packet::validate`]
//!   reporting every broken rule with a stable [`codes::Code`].
//! - [`observation`]: the observation documents (what Laika saw on a page).
//! - [`render`]: the render AST the model answers in, its sanitiser and its HTML writer;
//!   [`markdown`] maps the markdown summary path onto the same AST.
//! - [`tools`]: the tool catalogue with typed, range-checked arguments.
//! - [`parse`]: model output → a typed reply (think blocks, fences, prose around JSON).
//! - [`policy`]: the Policy Gate (allow / ask / deny for every proposed call).
//! - [`snapshot`]: a page copied as plain data, read through the same [`dom::Dom`] trait where
//!   a page's CSP keeps WASM out of the content script.
//! - [`grounding`]: sentences, key points, retrieval, the loop guard and the support check
//!   that every model sentence passes before it is shown.
//! - [`librarian`]: the Librarian's `xml_attrless` request writer and response parser.
//! - [`field_value`]: a value as people write it in the form a date, time or number field takes.
//! - [`calc`] and [`money`]: `app.calculate` and `app.money_calculate`, pure computation that
//!   runs in trusted code.

pub mod calc;
pub mod codes;
pub mod dom;
pub mod field_value;
pub mod goal;
pub mod grounding;
#[cfg(feature = "html")]
pub mod html;
pub mod librarian;
pub mod markdown;
pub mod money;
pub mod observation;
pub mod observe;
pub mod packet;
pub mod parse;
pub mod policy;
pub mod render;
pub mod snapshot;
#[cfg(feature = "html")]
mod stylesheet;
pub mod tools;
pub mod weburl;

pub use codes::{Code, Violation};
