//! The extractors under comparison, each called the way its documentation recommends for plain
//! main text, timed around the extraction call alone and shielded from panics.

use clap::ValueEnum;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, ValueEnum)]
pub enum Extractor {
    /// Laika's own `laika_shared::html::extract_main_text`.
    Laika,
    /// rs-trafilatura, the Rust port of trafilatura.
    Trafilatura,
    /// dom_smoothie, a port of Mozilla's Readability.
    Smoothie,
}

impl Extractor {
    pub const ALL: [Extractor; 3] = [Extractor::Laika, Extractor::Trafilatura, Extractor::Smoothie];

    pub fn key(self) -> &'static str {
        match self {
            Extractor::Laika => "laika",
            Extractor::Trafilatura => "trafilatura",
            Extractor::Smoothie => "smoothie",
        }
    }

    /// The main text of a page, or the extractor's own error.
    fn extract(self, html: &str, url: &str) -> Result<String, String> {
        // Every extractor is given the page's URL: Laika takes it, rs-trafilatura's page-type
        // classifier reads it (its benchmark CLI passes `--url`), dom_smoothie resolves links
        // with it. Otherwise each runs with its default options.
        let url = (!url.is_empty()).then_some(url);
        match self {
            Extractor::Laika => Ok(laika_shared::html::extract_main_text(html, url.unwrap_or(""))),
            Extractor::Trafilatura => {
                let options =
                    rs_trafilatura::Options { url: url.map(str::to_string), ..rs_trafilatura::Options::default() };
                // `content_text` is the plain-text output (markdown and HTML are opt-in).
                rs_trafilatura::extract_with_options(html, &options).map(|r| r.content_text).map_err(|e| e.to_string())
            }
            Extractor::Smoothie => {
                // `TextMode::Raw` (the default) concatenates text nodes as they are, so the
                // last word of one paragraph runs into the first of the next whenever the
                // markup has no whitespace between them; `Formatted` puts line breaks between
                // blocks, as the crate's README suggests for text output.
                let config =
                    dom_smoothie::Config { text_mode: dom_smoothie::TextMode::Formatted, ..Default::default() };
                let mut readability =
                    dom_smoothie::Readability::new(html, url, Some(config)).map_err(|e| e.to_string())?;
                readability.parse().map(|article| article.text_content.to_string()).map_err(|e| e.to_string())
            }
        }
    }

    /// Runs the extractor once on a page: its text (empty when it failed), how long the call
    /// took, and why it failed if it did.
    pub fn run(self, html: &str, url: &str) -> Run {
        timed_call(|| self.extract(html, url))
    }
}

/// Times one extraction call alone and catches its panic, if any.
fn timed_call(extract: impl FnOnce() -> Result<String, String>) -> Run {
    EXTRACTING.with(|flag| flag.set(true));
    let started = Instant::now();
    let outcome = catch_unwind(AssertUnwindSafe(extract));
    let elapsed = started.elapsed();
    EXTRACTING.with(|flag| flag.set(false));
    match outcome {
        Ok(Ok(text)) => Run { text, elapsed, failure: None },
        Ok(Err(message)) => Run { text: String::new(), elapsed, failure: Some(Failure::Error(message)) },
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".to_string());
            Run { text: String::new(), elapsed, failure: Some(Failure::Panic(message)) }
        }
    }
}

/// One extraction of one page.
pub struct Run {
    pub text: String,
    pub elapsed: Duration,
    pub failure: Option<Failure>,
}

/// Why an extractor gave no text; either way the page is scored as an empty extraction.
#[derive(Debug, Clone)]
pub enum Failure {
    /// It returned an error (e.g. dom_smoothie finding no article).
    Error(String),
    /// It panicked.
    Panic(String),
}

thread_local! {
    /// Set while an extractor runs, so the panic hook can tell its panics from the bench's own.
    static EXTRACTING: Cell<bool> = const { Cell::new(false) };
}

/// Keeps the default panic report (message and backtrace hint) for the bench's own panics but
/// silences the extractors', which [`Extractor::run`] catches and the report counts.
pub fn silence_extractor_panics() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !EXTRACTING.with(Cell::get) {
            default_hook(info);
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_back() {
        for extractor in Extractor::ALL {
            assert_eq!(Extractor::from_str(extractor.key(), false), Ok(extractor));
        }
    }

    #[test]
    fn a_panic_becomes_an_empty_output_and_a_failure() {
        let run = timed_call(|| panic!("broken page"));
        assert!(run.text.is_empty());
        assert!(matches!(run.failure, Some(Failure::Panic(ref message)) if message == "broken page"));
        let run = timed_call(|| Err("no article".to_string()));
        assert!(matches!(run.failure, Some(Failure::Error(_))));
        assert!(!EXTRACTING.with(Cell::get));
    }

    #[test]
    fn the_third_party_extractors_return_the_article_text() {
        let paragraph = "The quick brown fox jumps over the lazy dog near the quiet river bank. ";
        let html = format!(
            "<html><head><title>Fox</title></head><body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>\
             <article><h1>Fox news</h1><p>{}</p><p>{}</p></article><footer>Copyright</footer></body></html>",
            paragraph.repeat(6),
            paragraph.repeat(6)
        );
        for extractor in [Extractor::Trafilatura, Extractor::Smoothie] {
            let run = extractor.run(&html, "https://example.com/fox");
            assert!(run.failure.is_none(), "{}: {:?}", extractor.key(), run.failure);
            assert!(run.text.contains("quick brown fox"), "{}: {:?}", extractor.key(), run.text);
            assert!(!run.text.contains("Copyright"), "{}: {:?}", extractor.key(), run.text);
        }
    }
}
