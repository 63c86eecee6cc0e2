//! The observation reader on fixture pages (`tests/fixtures/pages/`), through the same
//! scraper-backed DOM the CLI uses, and through the `laika-host observe` binary.

use laika_shared::html::{HtmlDom, observe_html};
use laika_shared::observation::{FieldKind, Observation, Signal};
use laika_shared::observe::{ObserveOptions, observe, observe_chunk};
use std::path::PathBuf;
use std::process::Command;

fn fixture_path(name: &str) -> PathBuf {
    std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
    )
    .join("../tests/fixtures/pages")
    .join(name)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixture_path(name)).expect("fixture exists")
}

fn observe_fixture(name: &str, options: &ObserveOptions) -> Observation {
    observe_html(&fixture(name), "https://site.example/page", options)
}

/// The blocks `block(1)` to `block(count)`, one after another: a page's repeated paragraphs,
/// cards or entries.
fn numbered(count: u32, block: impl Fn(u32) -> String) -> String {
    (1..=count).map(block).collect()
}

#[test]
fn article_text_has_structure_prefixes_and_no_chrome() {
    let o = observe_fixture("article.html", &ObserveOptions::default());
    // The site name is cut from the document title (Readability's rule).
    assert_eq!(o.title, "How Sea Otters Use Stone Tools");
    let expected_lines = [
        "H1: How Otters Use Tools",
        "H2: Stones and anvils",
        "- Favourite stones are kept for weeks",
        "  - Some are carried between dives",
        "- Young otters learn by watching their mothers",
        "> They are the engineers of the kelp forest.",
        "Caption: An otter with a stone on its chest.",
        "H3: Measurements",
        "Site | Dives",
        "Monterey | 42",
        "Code: stone = pick_flat_stone()",
        "Term: Anvil",
        "Definition: A hard surface used to crack shells.",
        "Summary: Methods",
    ];
    let lines: Vec<&str> = o.text.lines().collect();
    for line in expected_lines {
        assert!(lines.contains(&line), "missing line {line:?} in\n{}", o.text);
    }
    // Order is the page's order.
    let position = |needle: &str| o.text.find(needle).unwrap_or_else(|| panic!("{needle} missing"));
    assert!(position("H1:") < position("H2: Stones") && position("H2: Stones") < position("H3: Measurements"));
    for absent in [
        "River Notes",
        "About us",
        "Share on Social",
        "Related stories",
        "Beavers build dams",
        "Copyright",
        "hidden and must not appear",
        "Neither must this one",
        "do not read me",
        ".x{color",
    ] {
        assert!(!o.text.contains(absent), "{absent:?} leaked into the text:\n{}", o.text);
    }
    let primary = o.primary.as_ref().expect("primary");
    assert!(matches!(primary.tag.as_str(), "main" | "article"), "{}", primary.tag);
    assert!(primary.handle_id.as_deref().is_some_and(|h| h.starts_with("laika-")));
    let outline: Vec<(u8, &str)> = o.outline.iter().map(|e| (e.level, e.text.as_str())).collect();
    assert_eq!(&outline[..3], &[(1, "How Otters Use Tools"), (2, "Stones and anvils"), (3, "Measurements")]);
    assert!(o.signals.is_empty(), "{:?}", o.signals);
}

#[test]
fn page_style_sheets_disclosure_panels_datelines_and_link_rails() {
    let o = observe_fixture("styled.html", &ObserveOptions::default());
    // The page's own <style> hides the mobile copy at desktop width: the story is read once.
    assert_eq!(o.text.matches("At low tide on a moonless night").count(), 1, "{}", o.text);
    // Collapsed accordion answers follow their toggles (aria-expanded, or a button holding the
    // question's heading, with a CSS-in-JS <style> between): they are page text a click shows.
    assert!(o.text.contains("Go with a friend, check the tide table"), "{}", o.text);
    assert!(o.text.contains("A red torch, a small mirror"), "{}", o.text);
    for absent in [
        // Behind a menu button (aria-haspopup) and in a drawer the sheet hides: not shown.
        "Copy link to this story",
        "Subscribers read every story first",
        // The dateline, a photo credit, an ad slot's label.
        "By Ana Reyes",
        "R. Okafor",
        "Advertisement",
        "March 2, 2026",
        // Teasers of other stories under a "You may also like" heading.
        "You may also like",
        "A year of limpets",
        "most of them came home",
        // The rail of category and archive links beside a short article.
        "Archive",
        "February 2026",
        "Birds of the estuary",
    ] {
        assert!(!o.text.contains(absent), "{absent:?} in the text:\n{}", o.text);
    }
}

#[test]
fn an_article_of_loose_text_beside_a_link_tree_is_read_alone() {
    // An article written as text broken by <br> (no <p>), a muted byline with a utility class
    // ("text-muted"), and a tall archive tree of links the page does not mark as navigation.
    let sentence = "The home care team reported this morning that two of its five cars were broken into, ";
    let archive: String = (2005..2020)
        .flat_map(|year| {
            (1..=12).map(move |month| format!("<li><a href=\"/news?y={year}&m={month}\">{month}/{year} (12)</a></li>"))
        })
        .collect();
    let page = format!(
        "<html><body><div class=\"row\"><div class=\"col-md-3\"><ul class=\"tree\">{archive}</ul></div>\
         <div class=\"col-md-9\"><p class=\"titulo\">Cars broken into</p>\
         <small class=\"text-muted\"><b>05/10/2018</b> - Published by: Clara B. - Category: <a href=\"/c/19\">Health</a></small><br><br>\
         {}<br>{}</div></div></body></html>",
        sentence.repeat(4),
        sentence.repeat(3)
    );
    let o = observe_html(&page, "https://city.example/news/1", &ObserveOptions::default());
    assert!(o.text.contains(sentence.trim()), "{}", o.text);
    assert!(!o.text.contains("5/2011"), "the archive tree leaked:\n{}", o.text);
    assert_eq!(o.primary.as_ref().map(|p| p.tag.as_str()), Some("div"), "{:?}", o.primary);
}

#[test]
fn a_block_the_page_repeats_is_read_once_and_repeated_lines_stay() {
    // The same section twice (a tablet and a desktop copy whose sheet is not in the page), and
    // a line that recurs inside different blocks (each day of a plan).
    let section = "<div class=\"copy\"><h2>Designed for every day</h2><p>We rethink what looks good and achieve \
        lasting results: a wallet for those who want to choose wisely and carry it for years, rather than \
        fast fashion and disposable things that wear out in a season.</p></div>";
    let day = |n: u32, meal: &str| {
        format!(
            "<div class=\"day\"><h3>Day {n}</h3><p>{meal} for lunch, with a green salad.</p><p>Drink a glass of water after your walk.</p></div>"
        )
    };
    let page = format!(
        "<html><body><main><h1>The wallet</h1>{section}{section}{}{}{}</main></body></html>",
        day(1, "Lentil soup"),
        day(2, "Grilled fish"),
        day(3, "Bean stew")
    );
    let o = observe_html(&page, "https://shop.example/wallet", &ObserveOptions::default());
    assert_eq!(o.text.matches("We rethink what looks good").count(), 1, "{}", o.text);
    assert_eq!(o.text.matches("Drink a glass of water after your walk.").count(), 3, "{}", o.text);
    assert!(o.text.contains("Bean stew"), "{}", o.text);
}

#[test]
fn list_pages_give_items_with_shown_comment_counts() {
    let o = observe_fixture("list.html", &ObserveOptions::default());
    let titles: Vec<&str> = o.items.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Rust and WebAssembly in the browser",
            "Sea otters are the engineers of the kelp forest",
            "Why SQLite is the most deployed database",
            "Ask: what are you reading this week?"
        ]
    );
    let counts: Vec<Option<u64>> = o.items.iter().map(|i| i.comment_count).collect();
    assert_eq!(counts, [Some(136), Some(12), Some(1204), None], "no count is invented for 'discuss'");
    assert!(o.items.iter().all(|i| i.handle_id.is_some()));
    // Credentials are stripped from item URLs; other parameters stay.
    assert_eq!(o.items[0].url, "https://example.com/rust-wasm?utm_source=x");
    let top: Vec<u64> = o.top_discussions.iter().map(|d| d.comment_count).collect();
    assert_eq!(top, [1204, 136, 12]);
}

#[test]
fn discussions_give_threaded_comments() {
    let o = observe_fixture("discussion.html", &ObserveOptions::default());
    let comments: Vec<(&str, &str, &str, &str, u32)> = o
        .comments
        .iter()
        .map(|c| (c.author.as_str(), c.age.as_str(), c.score.as_str(), c.text.as_str(), c.depth))
        .collect();
    assert_eq!(
        comments,
        [
            ("otterfan", "3 hours ago", "42 points", "Sea otters crack clams on stones they carry around.", 0),
            ("marinebio", "2 hours ago", "17 points", "They even keep favourite stones in a skin pouch.", 1),
            ("crowwatcher", "1 hour ago", "9 points", "New Caledonian crows bend wire into hooks.", 0),
        ]
    );
    assert!(o.text.contains("H1: Which animals use tools?"));
}

#[test]
fn form_fields_carry_their_kind_and_never_their_values() {
    let o = observe_fixture("form.html", &ObserveOptions::default());
    let kind_of = |label: &str| {
        o.elements.iter().find(|e| e.text == label).unwrap_or_else(|| panic!("no element {label:?}")).field_kind
    };
    assert_eq!(kind_of("Full name"), Some(FieldKind::Text));
    assert_eq!(kind_of("Email"), Some(FieldKind::Email));
    assert_eq!(kind_of("Password"), Some(FieldKind::Password));
    assert_eq!(kind_of("Code from your app"), Some(FieldKind::OneTimeCode));
    assert_eq!(kind_of("Card number"), Some(FieldKind::Payment));
    assert_eq!(kind_of("CVC"), Some(FieldKind::Payment));
    assert_eq!(kind_of("Search products"), Some(FieldKind::Search));
    assert_eq!(kind_of("Phone"), Some(FieldKind::Tel));
    assert_eq!(kind_of("Delivery notes"), Some(FieldKind::Textarea));
    assert_eq!(kind_of("I accept the terms"), Some(FieldKind::Checkbox));
    assert_eq!(kind_of("Pay now"), None);
    assert!(o.elements.iter().any(|e| e.text == "Disabled button" && e.disabled));
    assert!(o.elements.iter().any(|e| e.text == "Download the app" && e.download));
    assert!(
        o.elements.iter().all(|e| e.tag.as_deref() != Some("input") || e.text != "csrf"),
        "hidden inputs are not listed"
    );

    let json = serde_json::to_string(&o).unwrap();
    for secret in ["prefilled-name-value", "hunter2-secret", "hidden-csrf-token-value", "typed-notes-value", "s3cr3t"] {
        assert!(!json.contains(secret), "{secret} leaked into the observation");
    }
    let reset = o.elements.iter().find(|e| e.text == "Reset").unwrap();
    assert_eq!(reset.href.as_deref(), Some("https://bank.example/reset?user=ada"));
}

#[test]
fn every_signal_is_detected_on_its_fixture() {
    let o = observe_fixture("signals.html", &ObserveOptions::default());
    for signal in [
        Signal::OverlayOrDialog,
        Signal::Paywall,
        Signal::AuthGate,
        Signal::AuthFields,
        Signal::ConsentOverlay,
        Signal::AgeGate,
        Signal::GeoBlock,
        Signal::ScriptRequired,
    ] {
        assert!(o.signals.contains(&signal), "{signal:?} not in {:?}", o.signals);
    }
    // A plain article raises none.
    assert!(observe_fixture("article.html", &ObserveOptions::default()).signals.is_empty());
}

#[test]
fn links_labels_and_hidden_blocks_named_overlay_are_no_overlay() {
    // The Guardian's card headlines, its video's play button and its site message kept hidden
    // by a class, CNET's thumbnail captions and play-button symbols (readability's guardian-1
    // and cnet) are named "overlay" and hide nothing.
    let article =
        numbered(6, |i| format!("<p>Paragraph {i} of the story tells what the river otters did that week.</p>"));
    let page = |extra: &str| {
        format!("<html><body><article><h1>Otters</h1>{article}</article><aside>{extra}</aside></body></html>")
    };
    let links = page(
        "<a class=\"u-faux-block-link__overlay js-headline-text\" href=\"/next\">The next story</a>\
         <span class=\"thumbnail-overlay\">Gallery</span>\
         <svg><symbol id=\"playOverlay\"><title>Play</title></symbol></svg>\
         <div class=\"vjs-big-play-button youtube-media-atom__overlay\">Play Video</div>\
         <div class=\"site-message-overlay is-hidden\"><p>Subscribe to our newsletter for more stories.</p></div>",
    );
    let o = observe_html(&links, "https://site.example/page", &ObserveOptions::default());
    assert!(!o.signals.contains(&Signal::OverlayOrDialog), "{:?}", o.signals);
    // A block named so still is one.
    let modal = page("<div class=\"modal\"><p>Subscribe to our newsletter for more stories.</p></div>");
    let o = observe_html(&modal, "https://site.example/page", &ObserveOptions::default());
    assert!(o.signals.contains(&Signal::OverlayOrDialog), "{:?}", o.signals);
}

fn long_page(paragraphs: usize) -> String {
    let mut html = String::from("<html><head><title>Long</title></head><body><article><h1>Long read</h1>");
    for i in 0..paragraphs {
        html.push_str(&format!(
            "<p>Paragraph {i} says something about otters, rivers, stones and shells, with detail number {i}.</p>"
        ));
        if i % 40 == 0 {
            html.push_str(&format!("<h2>Part {i}</h2><ul><li>point {i}a</li><li>point {i}b</li></ul>"));
        }
    }
    html.push_str("</article></body></html>");
    html
}

#[test]
fn budgets_cut_where_they_should() {
    let html = long_page(400);
    let full = observe_html(&html, "https://site.example/", &ObserveOptions::unbounded());
    assert!(full.text.chars().count() > 30_000);

    let small = ObserveOptions {
        max_chars: 1_000,
        max_outline: 3,
        max_outline_chars: 6,
        max_primary_chars: 50,
        max_elements: 0,
        ..ObserveOptions::default()
    };
    let o = observe_html(&html, "https://site.example/", &small);
    assert!(o.text.chars().count() <= 1_000 && o.text.chars().count() >= 800, "{}", o.text.chars().count());
    assert!(full.text.starts_with(&o.text));
    assert_eq!(o.outline.len(), 3);
    assert!(o.outline.iter().all(|e| e.text.chars().count() <= 6));
    assert!(o.primary.unwrap().text.chars().count() <= 50);
    assert!(o.elements.is_empty());

    let blocks = ObserveOptions { max_blocks: 5, ..ObserveOptions::unbounded() };
    assert_eq!(observe_html(&html, "https://site.example/", &blocks).text.lines().count(), 5);

    let list = ObserveOptions { max_items: 2, max_item_chars: 10, ..ObserveOptions::default() };
    let o = observe_fixture("list.html", &list);
    assert_eq!(o.items.len(), 2);
    assert!(o.items.iter().all(|i| i.title.chars().count() <= 10));

    let thread = ObserveOptions { max_comments: 1, max_comment_chars: 12, ..ObserveOptions::default() };
    let o = observe_fixture("discussion.html", &thread);
    assert_eq!(o.comments.len(), 1);
    assert!(o.comments[0].text.chars().count() <= 12);

    let few = ObserveOptions { max_elements: 3, ..ObserveOptions::default() };
    assert_eq!(observe_fixture("form.html", &few).elements.len(), 3);
}

#[test]
fn the_cursor_walk_reads_the_whole_text_once() {
    let html = long_page(1_700);
    let dom = HtmlDom::parse(&html);
    let whole = observe(&dom, "https://site.example/", &ObserveOptions::unbounded()).text;
    assert!(whole.chars().count() > 150_000, "{}", whole.chars().count());
    let mut cursor = 0;
    let mut joined = String::new();
    let mut steps = 0;
    loop {
        let options = ObserveOptions { max_chars: 4_000, cursor, ..ObserveOptions::default() };
        let chunk = observe_chunk(&dom, "https://site.example/", &options);
        assert!(chunk.observation.text.chars().count() <= 4_000);
        assert_eq!(chunk.total_chars, whole.chars().count());
        joined.push_str(&chunk.observation.text);
        steps += 1;
        if chunk.done {
            break;
        }
        assert!(chunk.cursor > cursor, "the cursor moves forward");
        cursor = chunk.cursor;
        assert!(steps < 1_000);
    }
    assert_eq!(joined, whole, "nothing lost, nothing repeated");
    // A cursor past the end is an empty, finished chunk.
    let past = observe_chunk(
        &dom,
        "https://site.example/",
        &ObserveOptions { cursor: usize::MAX, ..ObserveOptions::default() },
    );
    assert!(past.done && past.observation.text.is_empty());
}

#[test]
fn handles_are_stable_across_observations_and_scope_a_root() {
    let dom = HtmlDom::parse(&fixture("form.html"));
    let first = observe(&dom, "https://site.example/", &ObserveOptions::default());
    let second = observe(&dom, "https://site.example/", &ObserveOptions::default());
    let handles = |o: &Observation| o.elements.iter().map(|e| e.handle_id.clone()).collect::<Vec<_>>();
    assert_eq!(handles(&first), handles(&second));

    let article = HtmlDom::parse(&fixture("article.html"));
    let whole = observe(&article, "https://site.example/", &ObserveOptions::default());
    let aside_link =
        whole.elements.iter().find(|e| e.text == "Beavers build dams").expect("the aside's link is an element");
    let _ = aside_link;
    let root = whole.primary.unwrap().handle_id.unwrap();
    let scoped = observe(
        &article,
        "https://site.example/",
        &ObserveOptions { root_handle_id: Some(root), ..ObserveOptions::default() },
    );
    assert!(scoped.text.contains("H1: How Otters Use Tools"));
    assert!(!scoped.elements.iter().any(|e| e.text == "About us"), "elements outside the root are not observed");
}

#[test]
fn bad_html_never_panics() {
    for html in [
        "",
        "<",
        "<<<>>>",
        "<html><body><p>unclosed <b>tags <i>everywhere",
        "\u{0}\u{1}<script>",
        "<table><tr><td><table><tr><td>nested</td></tr></table>",
        "<svg><foreignObject><p>odd</p></foreignObject></svg>",
    ] {
        let _ = observe_html(html, "not a url", &ObserveOptions::default());
    }
    let deep = format!("{}deep text{}", "<div>".repeat(20_000), "</div>".repeat(20_000));
    let o = observe_html(&deep, "https://site.example/", &ObserveOptions::default());
    let _ = o.text;
}

#[test]
fn the_cli_observes_files_and_stdin_and_reports_missing_files() {
    let bin = env!("CARGO_BIN_EXE_laika-host");
    let out = Command::new(bin)
        .args([
            "observe",
            fixture_path("list.html").to_str().unwrap(),
            "--url",
            "https://news.example/",
            "--max-items",
            "2",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let o: Observation = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(o.items.len(), 2);

    let out = Command::new(bin)
        .args(["observe", fixture_path("article.html").to_str().unwrap(), "--max-chars", "100", "--cursor", "0"])
        .output()
        .unwrap();
    let chunk: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(chunk["done"], false);
    assert!(chunk["cursor"].as_u64().unwrap() > 0);

    let out = Command::new(bin).args(["observe", "/nonexistent.html"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent.html"));
}

#[test]
fn commas_all_over_the_page_do_not_make_the_whole_page_the_content() {
    // A short article beside a long story list that the page does not mark as chrome, whose
    // titles and bylines are full of commas: the page's commas are not the article's.
    let paragraph = |n: u32| {
        format!(
            "<p>Paragraph {n} of the story tells, in plain words, what the council decided on the new \
             bridge and why the vote took three evenings.</p>"
        )
    };
    let teasers = numbered(20, |n| {
        format!(
            "<div class=\"teaser\"><h3><a href=\"/s/{n}\">Story {n}: markets, oil, gold, and bonds, \
             in one list</a></h3><span>By Staff, Wire, Desk</span></div>"
        )
    });
    let page = format!(
        "<html><body><div class=\"wrap\"><div class=\"story\"><h1>Bridge vote</h1>{}{}{}</div>\
         <div class=\"list\">{teasers}</div></div></body></html>",
        paragraph(1),
        paragraph(2),
        paragraph(3)
    );
    let o = observe_html(&page, "https://news.example/bridge", &ObserveOptions::default());
    assert!(o.text.contains("Paragraph 3 of the story"), "{}", o.text);
    assert!(!o.text.contains("markets, oil, gold"), "the story list was read as the article:\n{}", o.text);
    assert_ne!(o.primary.as_ref().map(|p| p.tag.as_str()), Some("html"), "{:?}", o.primary);
}

#[test]
fn a_code_example_full_of_commas_does_not_outweigh_the_prose_around_it() {
    // A documentation page: sections of prose and one long code example. Its commas are syntax;
    // counted as prose they made the example the whole content.
    let prose = |topic: &str| {
        format!(
            "<section class=\"function\"><h2>{topic}</h2><p>The {topic} function returns an iterator over \
             the input, and it stops when the shortest input is exhausted; use it when the inputs are \
             long.</p></section>"
        )
    };
    let code: String = (0..60).map(|n| format!("pairs({n}, [a, b, c], key={n}, default=None)\n")).collect();
    let page = format!(
        "<html><body><main><section class=\"module\"><h1>itertools</h1>{}{}{}\
         <section class=\"recipes\"><h2>Recipes</h2>{}<div class=\"highlight\"><pre>{code}</pre></div></section>\
         </section></main></body></html>",
        prose("chain"),
        prose("islice"),
        prose("zip_longest"),
        prose("pairwise")
    );
    let o = observe_html(&page, "https://docs.example/itertools", &ObserveOptions::default());
    for topic in ["chain", "islice", "zip_longest", "pairwise"] {
        assert!(o.text.contains(&format!("The {topic} function")), "{topic} missing:\n{}", o.text);
    }
    assert!(o.text.contains("pairs(59, [a, b, c]"), "{}", o.text);
}

#[test]
fn an_article_spread_over_containers_is_read_whole_and_story_teasers_stay_out() {
    // The story starts in its body container, goes on below a share bar in another one, and a
    // "more stories" list of linked headings with excerpts sits beside it.
    let paragraph = |part: &str, n: u32| {
        format!(
            "<p>{part} paragraph {n}: the harbour authority said on Monday that the new pier opens in \
             spring, after two years of work and one long winter.</p>"
        )
    };
    let first = numbered(3, |n| paragraph("First", n));
    let rest = numbered(4, |n| paragraph("Later", n));
    let teasers = numbered(8, |n| {
        format!(
            "<div class=\"card\"><h3><a href=\"/story/{n}\">Other story {n}</a></h3><p>Excerpt of other \
             story {n}, a long teaser sentence that runs on for a while to look like a paragraph.</p></div>"
        )
    });
    let page = format!(
        "<html><body><div class=\"page\"><div class=\"top\"><div class=\"col\"><h1>The pier</h1>\
         <div class=\"article-body\">{first}</div></div></div>\
         <div class=\"tools\"><a href=\"/share\">Share</a></div>\
         <section class=\"below\"><div class=\"wrapper\"><div class=\"continued\">{rest}</div></div></section>\
         </div><div class=\"stories\">{teasers}</div></body></html>"
    );
    let o = observe_html(&page, "https://harbour.example/pier", &ObserveOptions::default());
    assert!(o.text.contains("First paragraph 1:"), "{}", o.text);
    assert!(o.text.contains("Later paragraph 4:"), "the story's second half is missing:\n{}", o.text);
    assert!(!o.text.contains("Excerpt of other story"), "teasers were read as the story:\n{}", o.text);
}

#[test]
fn utility_classes_of_a_css_framework_are_no_sign_of_chrome() {
    // A landing page built with Tailwind: "overflow-hidden" and "md:hidden" style its sections. Read as chrome words ("hidden"), they dropped the feature cards.
    let card = |n: u32| {
        format!(
            "<div class=\"overflow-hidden rounded-lg\"><h3>Feature {n}</h3><div>Deploys in seconds, card {n}, \
             from a branch to a preview URL</div></div>"
        )
    };
    let cards = numbered(8, card);
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><main class=\"page-root\">\
         <section class=\"grid md:grid-cols-2\"><div class=\"relative overflow-hidden md:hidden lg:flex\"><h1>Ship faster</h1>\
         <p>One platform for the whole team, from the first commit to the production deploy, with previews \
         for every branch.</p></div>{cards}</section>\
         <div class=\"share-tools\"><a href=\"/t\">Tweet</a> <a href=\"/f\">Post</a></div>\
         </main></body></html>"
    );
    let o = observe_html(&page, "https://saas.example/", &ObserveOptions::default());
    assert!(o.text.contains("One platform for the whole team"), "{}", o.text);
    for n in 1..=8 {
        assert!(o.text.contains(&format!("Deploys in seconds, card {n},")), "card {n} missing:\n{}", o.text);
    }
    assert!(!o.text.contains("Tweet"), "the share links were read as text:\n{}", o.text);
}

#[test]
fn customer_reviews_are_not_the_product_description() {
    // A product page: name, price and description, then customers' reviews. The reviews are
    // other people's words about the product, like comments: not the page's own text.
    let review = |n: u32| {
        format!(
            "<div class=\"review-card\"><span>Buyer {n}</span><p>Review {n}: I bought this for my kitchen and it has \
             held up well for months of daily use, although the lid squeaks a little.</p></div>"
        )
    };
    let reviews = numbered(2, review);
    let page = format!(
        "<html><body><main><div class=\"product\"><h1>Steel Tumbler 20 oz</h1><div class=\"price\">$35.00</div>\
         <p>A double-wall vacuum insulated tumbler that keeps cold drinks cold and hot \
         drinks hot, with a magnetic slider lid and a shape that fits most cup holders.</p><p>The steel is \
         kitchen-grade and resists punctures and rust; the lid's gasket comes out for cleaning, and the \
         outside never sweats, whatever the drink.</p><p>It comes in twelve colours, each with a matching \
         lid, and can be engraved with a name or a logo at no extra cost.</p><p>Every tumbler is \
         covered by a five-year warranty, and spare lids, straws and gaskets are sold separately.</p><ul><li>Dishwasher \
         safe</li><li>Splash resistant lid</li></ul>\
         <section class=\"product-reviews\"><h2>Customer reviews</h2>{reviews}</section></div></main></body></html>"
    );
    let o = observe_html(&page, "https://shop.example/tumbler", &ObserveOptions::default());
    assert!(o.text.contains("double-wall vacuum insulated"), "{}", o.text);
    assert!(o.text.contains("Splash resistant lid"), "{}", o.text);
    assert!(!o.text.contains("Review 2:"), "the customer reviews were read as the description:\n{}", o.text);
}

#[test]
fn a_box_named_like_chrome_that_holds_paragraphs_is_read_and_comments_are_not() {
    // An article whose FAQ accordion is named "kt-pane-header-alignment-left" (a "header" word)
    // and whose comments follow in paragraphs: the FAQ's paragraphs are the article's, the
    // comments are not.
    let paragraph = |part: &str, n: u32| {
        format!(
            "<p>{part} {n}: the accountant compares the plans on price, invoicing and tax reports, and \
             says which suits a freelancer with one or two clients.</p>"
        )
    };
    let body = numbered(4, |n| paragraph("Body", n));
    let faq = numbered(5, |n| paragraph("Answer", n));
    let comments = numbered(5, |n| paragraph("Comment", n));
    let page = format!(
        "<html><body><div class=\"wrap\"><div class=\"entry\"><h1>Accounting software for freelancers</h1>{body}\
         <div class=\"kt-accordion-wrap kt-pane-header-alignment-left\"><h2>FAQ</h2>{faq}</div></div>\
         <div class=\"comment-list\">{comments}</div></div></body></html>"
    );
    let o = observe_html(&page, "https://blog.example/accounting", &ObserveOptions::default());
    assert!(o.text.contains("Body 4:"), "{}", o.text);
    assert!(o.text.contains("Answer 5:"), "the FAQ was dropped as chrome:\n{}", o.text);
    assert!(!o.text.contains("Comment 2:"), "the comments were read as the article:\n{}", o.text);
}

#[test]
fn a_page_builder_class_around_most_of_the_text_is_no_chrome_word() {
    // A page builder wraps every block, the article's paragraphs and the share buttons alike,
    // in "widget-container": on such a page the class says nothing about what a block holds.
    let block = |n: u32| {
        format!(
            "<div class=\"builder-widget-container\"><p>Step {n}: put a presence sensor in each room and \
             let the assistant track who is where.</p></div>"
        )
    };
    let blocks = numbered(8, block);
    let page = format!(
        "<html><body><header><a href=\"/\">Blog</a></header><div class=\"site\"><h1>Room presence</h1>{blocks}\
         <div class=\"builder-widget-container\"><div class=\"share-buttons\"><a href=\"/x\">Share on X</a> \
         <a href=\"/fb\">Share on Facebook</a></div></div></div></body></html>"
    );
    let o = observe_html(&page, "https://blog.example/presence", &ObserveOptions::default());
    for n in 1..=8 {
        assert!(o.text.contains(&format!("Step {n}:")), "step {n} missing:\n{}", o.text);
    }
    assert!(!o.text.contains("Share on X"), "the share buttons were read as text:\n{}", o.text);
}

#[test]
fn the_entries_of_a_list_with_snippets_are_not_link_clutter() {
    // A section page: an introduction, then entries of a linked title and a short snippet of
    // plain text. Each entry is mostly link text, but its snippet is the page's own.
    let intro = numbered(8, |n| {
        format!(
            "<p>Introduction {n}: this section gathers the week's science reporting, from the labs to \
             the field, with the stories our editors thought worth your time.</p>"
        )
    });
    let entries = numbered(6, |n| {
        format!(
            "<div class=\"item\"><h3><a href=\"/story/{n}\">Telescope finds water vapour on a distant moon, story {n}</a></h3>\
             <span>Snippet {n}: the plume rose 200 km.</span></div>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><main><h1>Science</h1>{intro}<div class=\"list\">{entries}</div>\
         </main></body></html>"
    );
    let o = observe_html(&page, "https://news.example/science", &ObserveOptions::default());
    assert!(o.text.contains("Introduction 8:"), "{}", o.text);
    for n in 1..=6 {
        assert!(o.text.contains(&format!("Snippet {n}:")), "entry {n} missing:\n{}", o.text);
    }
}

#[test]
fn the_heading_is_left_out_when_it_repeats_any_of_the_pages_titles() {
    // The social card's title (which the observation's title is taken from) is worded
    // differently from the page's <title> and its heading: the heading is still the title.
    let paragraphs = numbered(4, |n| {
        format!(
            "<p>Paragraph {n}: prosecutors said the case could no longer be pursued because witnesses' \
             memories had faded over the years.</p>"
        )
    });
    let page = format!(
        "<html><head><title>Julian Assange: Sweden drops rape investigation - World News</title>\
         <meta property=\"og:title\" content=\"Sweden drops Assange rape investigation\"></head>\
         <body><div class=\"story\"><h1>Julian Assange: Sweden drops rape investigation</h1>{paragraphs}</div></body></html>"
    );
    let o = observe_html(&page, "https://news.example/assange", &ObserveOptions::default());
    assert_eq!(o.title, "Sweden drops Assange rape investigation");
    assert!(o.text.contains("Paragraph 4:"), "{}", o.text);
    assert!(!o.text.contains("H1: Julian Assange"), "the title was read twice:\n{}", o.text);
}

#[test]
fn a_related_stories_block_under_a_label_that_is_not_a_heading_stays_out() {
    // The block of other stories after the article opens with a styled <div>, not a heading.
    let paragraphs = numbered(5, |n| {
        format!(
            "<p>Paragraph {n}: the doctors traced the man's cough to the feathers of his new duvet and \
             pillows, which he had bought a few months before.</p>"
        )
    });
    let stories = numbered(4, |n| {
        format!(
            "<div class=\"story\"><a href=\"/s/{n}\">Other story number {n}</a><p>A teaser of the other \
             story, long enough to read like a paragraph of the page, about a medical mystery {n}.</p></div>"
        )
    });
    let page = format!(
        "<html><body><div class=\"post\"><h1>Feather duvet lung</h1>{paragraphs}\
         <div class=\"recirc\"><div class=\"label\">More Great Stories</div>{stories}</div></div></body></html>"
    );
    let o = observe_html(&page, "https://news.example/duvet", &ObserveOptions::default());
    assert!(o.text.contains("Paragraph 5:"), "{}", o.text);
    assert!(!o.text.contains("Other story number"), "the related stories were read:\n{}", o.text);
}

#[test]
fn a_landing_page_of_one_sentence_sections_is_read_whole() {
    // A service page: an overview in two paragraphs, then ten feature sections of one short
    // sentence each. The sentences are the page's text as much as the overview is.
    let overview = numbered(2, |n| {
        format!(
            "<p>Overview {n}: our accountants handle your books, payroll, and taxes, so you can spend \
             your week on customers, hiring, and the product instead of paperwork.</p>"
        )
    });
    let features = numbered(10, |n| {
        format!(
            "<section class=\"feature\"><h3>Feature {n}</h3><p>Feature {n} closes your month in one day, with receipts matched.</p></section>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a> <a href=\"/pricing\">Pricing</a></nav><main>\
         <section class=\"overview\"><h1>Bookkeeping for startups</h1>{overview}</section>\
         <div class=\"features\"><div class=\"grid\">{features}</div></div></main></body></html>"
    );
    let o = observe_html(&page, "https://books.example/", &ObserveOptions::default());
    assert!(o.text.contains("Overview 2:"), "{}", o.text);
    for n in 1..=10 {
        assert!(o.text.contains(&format!("Feature {n} closes")), "feature {n} missing:\n{}", o.text);
    }
}

#[test]
fn a_newsletter_box_of_paragraphs_stays_chrome_and_a_short_card_title_keeps_the_heading() {
    // A newsletter box written in paragraphs is still a newsletter box; and a card title that is
    // one word of the heading ("News") does not make the heading the page's title.
    let story = numbered(8, |n| {
        format!(
            "<p>Story {n}: the council voted to rebuild the bridge over the river, and the works start \
             in March after three evenings of debate.</p>"
        )
    });
    let pitch = numbered(4, |n| {
        format!(
            "<p>Pitch {n}: every morning our editors pick the stories that matter to the town and send \
             them to your inbox before breakfast, free of charge.</p>"
        )
    });
    let page = format!(
        "<html><head><title>Town Gazette - The bridge vote</title><meta name=\"twitter:title\" content=\"News\"></head><body><div class=\"page\">\
         <div class=\"story\"><h1>News from the council: the bridge</h1>{story}</div>\
         <div class=\"newsletter-signup\">{pitch}</div></div></body></html>"
    );
    let o = observe_html(&page, "https://town.example/bridge", &ObserveOptions::default());
    assert!(o.text.contains("Story 8:"), "{}", o.text);
    assert!(o.text.contains("H1: News from the council"), "the heading was taken for the title:\n{}", o.text);
    assert!(!o.text.contains("Pitch 3:"), "the newsletter box was read as the story:\n{}", o.text);
}

#[test]
fn the_heading_is_left_out_when_it_repeats_the_reported_title_whatever_its_source() {
    // The observation reports the Weibo page title (the <title> says something else): the
    // heading that repeats it is the title, whichever source the title came from.
    let paragraphs = numbered(4, |n| {
        format!("<p>Paragraph {n}: the new line opens next spring with twelve stations along the river.</p>")
    });
    let page = format!(
        "<html><head><title>Morning edition of the City Daily newspaper</title><meta name=\"weibo:webpage:title\" content=\"Metro line opens next spring\"></head>\
         <body><div class=\"story\"><h1>Metro line opens next spring</h1>{paragraphs}</div></body></html>"
    );
    let o = observe_html(&page, "https://news.example/metro", &ObserveOptions::default());
    assert_eq!(o.title, "Metro line opens next spring");
    assert!(o.text.contains("Paragraph 4:"), "{}", o.text);
    assert!(!o.text.contains("H1: Metro line"), "the title was read twice:\n{}", o.text);
}

#[test]
fn a_declared_article_body_is_read_without_the_headline_rows_and_footer_beside_it() {
    // A breaking-news page: rows of one class hold a label, the headline, the story (marked
    // `itemprop="articleBody"`, its lines split by empty divs) and a ticker of other stories;
    // the site footer below holds the page's only <p> paragraphs. The story is the content,
    // not one row among alike rows, and the footer's paragraphs are no reason to widen.
    let ticker = numbered(15, |n| {
        format!(
            "<div class=\"ticker-link\"><a href=\"/breaking/{n}\"><span>Headline {n} of the day's other news</span>\
             <ul><li>By WIRE STAFF</li><li>11/20/2019 0{}:00 AM</li></ul></a></div>",
            n % 10
        )
    });
    let footer = numbered(4, |n| {
        format!(
            "<p>Footer paragraph {n}: the newspaper has been published since 1932 and is read by millions \
             of people around the world every single day of the year.</p>"
        )
    });
    let page = format!(
        "<html><body><div class=\"rows\">\
         <div class=\"row\"><div class=\"label\">BREAKING NEWS</div></div>\
         <div class=\"row\"><h1>Physician stabbed during a lecture in Berlin</h1><div class=\"byline\">By STAFF</div></div>\
         <div class=\"row\"><div itemprop=\"articleBody\">Story line one: a chief physician was stabbed to death during \
         a lecture at a Berlin clinic on Tuesday evening, police said.<div class=\"fake-br\"></div>Story line two: a man \
         who tried to stop the attacker was critically injured.<div class=\"fake-br\"></div>Story line three: a \
         57-year-old suspect was arrested at the scene.</div></div>\
         <div class=\"row\"><div class=\"ticker\">{ticker}</div></div>\
         </div><div class=\"site-footer-wrap\">{footer}</div></body></html>"
    );
    let o = observe_html(&page, "https://news.example/breaking/1", &ObserveOptions::default());
    for line in ["Story line one:", "Story line two:", "Story line three:"] {
        assert!(o.text.contains(line), "{line} missing:\n{}", o.text);
    }
    for absent in ["Headline 3 of", "Footer paragraph", "WIRE STAFF"] {
        assert!(!o.text.contains(absent), "{absent:?} was read as the story's text:\n{}", o.text);
    }
}

#[test]
fn the_declared_article_body_is_the_content_without_the_extras_of_its_container() {
    // The story's container holds, beside the declared body, an author blurb and a subscription
    // pitch written as plain paragraphs: nothing in their tags or classes says they are not the
    // story, but the page says where the story is.
    let paragraphs = numbered(6, |n| {
        format!(
            "<p>Paragraph {n}: the allotment society planted forty new beds this spring, and the volunteers \
             kept a careful record of what grew, what failed and what the slugs ate first.</p>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><div class=\"story\"><h2>Forty new beds</h2>\
         <div itemprop=\"articleBody\">{paragraphs}</div>\
         <p>Jane Doe writes about gardens for the Daily Leaf. She lives in Leeds with two cats and far too many \
         tomato plants, and answers every letter.</p>\
         <p>Subscribe today and save half on a year of the Daily Leaf in print and online, with the garden \
         supplement every Saturday.</p></div></body></html>"
    );
    let o = observe_html(&page, "https://leaf.example/beds", &ObserveOptions::default());
    for n in 1..=6 {
        assert!(o.text.contains(&format!("Paragraph {n}:")), "paragraph {n} missing:\n{}", o.text);
    }
    for absent in ["Jane Doe writes", "Subscribe today"] {
        assert!(!o.text.contains(absent), "{absent:?} was read as the story's text:\n{}", o.text);
    }
    let primary = o.primary.expect("a primary element");
    assert!(primary.text.starts_with("Paragraph 1:"), "primary is not the declared body: {}", primary.text);
}

#[test]
fn a_ticker_of_cut_short_excerpts_beside_the_story_stays_out() {
    // A "Breaking News" box beside the story: entries of a linked headline and a snippet cut
    // short with "...", written as sentences like the story's own. They are other pages' text.
    let ticker = numbered(8, |n| {
        format!(
            "<li><a href=\"/story/{n}\">Headline {n}: council votes on the new budget</a>\
             <span>CITY: Excerpt {n} of another story, where the council met on Wednesday to decide how \
             the money for the coming year would be spent, and the opposition said that it...</span></li>"
        )
    });
    let paragraphs = numbered(5, |n| {
        format!(
            "<p>Paragraph {n}: nearly 150 travellers returned home on Wednesday after their flights were \
             cancelled, and many said they had lost their savings on tickets that were never refunded.</p>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><div class=\"container\">\
         <div class=\"breaking-news\"><div class=\"breaking-title\"><b>Breaking News</b></div><ul>{ticker}</ul></div>\
         <div class=\"main-article-content\"><h1>Travellers return home</h1>{paragraphs}</div>\
         </div></body></html>"
    );
    let o = observe_html(&page, "https://news.example/travellers", &ObserveOptions::default());
    for n in 1..=5 {
        assert!(o.text.contains(&format!("Paragraph {n}:")), "paragraph {n} missing:\n{}", o.text);
    }
    for absent in ["Excerpt 3 of", "Headline 3:", "Breaking News"] {
        assert!(!o.text.contains(absent), "{absent:?} was read as the story's text:\n{}", o.text);
    }
}

#[test]
fn variants_of_a_page_builder_class_are_no_chrome_words_unless_they_name_chrome() {
    // Every block is an "elementor-widget"; its kind is a variant of that class. Icon and image
    // boxes are the service's features ("widget" in them is the builder's word); a nav menu is a
    // menu. Each kind holds under half of the text, so no kind is a builder class of its own.
    let widget = |kind: &str, inner: &str| {
        format!(
            "<div class=\"elementor-widget elementor-widget-{kind}\"><div class=\"elementor-widget-container\">{inner}</div></div>"
        )
    };
    let feature = |kind: &str, n: u32| {
        widget(
            kind,
            &format!(
                "<h3>Feature {n}</h3><p>Feature {n} text: our writers rebuild your resume around the results you \
                 delivered, a recruiter reviews it, and you get two rounds of changes before you send it anywhere.</p>"
            ),
        )
    };
    let icon_boxes = numbered(5, |n| feature("icon-box", n));
    let image_boxes = numbered(5, |n| feature("image-box", n + 5));
    let intro = widget(
        "text-editor",
        &numbered(3, |n| {
            format!(
                "<p>Professional resume writing, part {n}: for every stage of a career, from the first job to \
                 the boardroom, with a recruiter's review included in every package.</p>"
            )
        }),
    );
    let menu = widget(
        "nav-menu",
        "<ul><li><a href=\"/\">Home</a></li><li><a href=\"/pricing\">Pricing plans</a></li>\
         <li><a href=\"/blog\">Career blog</a></li><li><a href=\"/contact\">Contact us</a></li></ul>",
    );
    // A widget whose variant names chrome stays chrome, even written as a paragraph.
    let newsletter = widget(
        "newsletter",
        "<p>Resume tips in your inbox: one email a week from our writers, no spam, and you can leave the \
         list whenever you like.</p>",
    );
    let page = format!(
        "<html><body><div class=\"elementor\">{menu}{intro}{icon_boxes}{image_boxes}{newsletter}</div></body></html>"
    );
    let o = observe_html(&page, "https://resumes.example/services", &ObserveOptions::default());
    assert!(o.text.contains("Professional resume writing, part 3:"), "{}", o.text);
    for n in 1..=10 {
        assert!(o.text.contains(&format!("Feature {n} text:")), "feature {n} missing:\n{}", o.text);
    }
    assert!(!o.text.contains("Pricing plans"), "the menu was read as text:\n{}", o.text);
    assert!(!o.text.contains("Resume tips in your inbox"), "the newsletter box was read as text:\n{}", o.text);
}

#[test]
fn a_service_page_whose_main_section_holds_most_but_not_all_paragraphs_is_read_whole() {
    // The first section holds three fifths of the page's paragraphs; the sections after it (how
    // it works, pricing), rows of their own class nested as deep, are the same page's text.
    let section = |name: &str, count: u32| {
        let paragraphs = numbered(count, |n| {
            format!(
                "<p>{name} paragraph {n}: a tutor works through the week's homework with your child, one to \
                 one, and writes you a short note on what went well and what needs practice.</p>"
            )
        });
        let class = name.to_lowercase().replace(' ', "-");
        format!(
            "<div class=\"row {class}-row\"><div class=\"column\"><div class=\"wrapper\"><div class=\"text-column\">\
             <div class=\"inner\"><h2>{name}</h2>{paragraphs}</div></div></div></div></div>"
        )
    };
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a> <a href=\"/tutors\">Tutors</a></nav><div class=\"page\">{}{}{}</div>\
         </body></html>",
        section("Overview", 6),
        section("How it works", 2),
        section("Pricing", 2)
    );
    let o = observe_html(&page, "https://tutors.example/math", &ObserveOptions::default());
    for name in ["Overview", "How it works", "Pricing"] {
        assert!(o.text.contains(&format!("{name} paragraph 2:")), "{name} missing:\n{}", o.text);
    }
}

#[test]
fn a_block_headed_more_of_some_kind_of_stories_stays_out() {
    // "More Blog Stories", "More Tech News": the heading names the stories' kind between "More"
    // and the word for stories.
    let paragraphs = numbered(5, |n| {
        format!(
            "<p>Paragraph {n}: the next laptop is expected to switch to the scissor keyboard that the larger \
             model introduced this week, according to a note from an analyst.</p>"
        )
    });
    let stories = numbered(6, |n| {
        format!(
            "<div class=\"story\"><a href=\"/blog/{n}\">Blog story number {n}: a case review</a><p>A teaser of \
             the other story, long enough to read like a paragraph of the page, about accessory {n}.</p></div>"
        )
    });
    for heading in ["More Blog Stories", "More Tech News"] {
        let page = format!(
            "<html><body><div class=\"content\"><h1>The scissor keyboard</h1>{paragraphs}\
             <div class=\"more\"><h2>{heading}</h2>{stories}</div></div></body></html>"
        );
        let o = observe_html(&page, "https://blog.example/keyboard", &ObserveOptions::default());
        assert!(o.text.contains("Paragraph 5:"), "{}", o.text);
        assert!(!o.text.contains(heading), "{heading:?} was read:\n{}", o.text);
        assert!(!o.text.contains("Blog story number"), "the stories under {heading:?} were read:\n{}", o.text);
    }
}

#[test]
fn the_pages_rel_tag_links_are_left_out_and_prose_linking_tags_stays() {
    let paragraphs = numbered(5, |n| {
        format!(
            "<p>Paragraph {n}: the season opens in March at Interlagos and closes there in December, with \
             twelve rounds in between and two dates still to be announced.</p>"
        )
    });
    let page = format!(
        "<html><body><div class=\"post\"><h1>Calendar</h1>{paragraphs}\
         <p>Prose with tags: this year's <a rel=\"tag\" href=\"/tag/calendar\">calendar</a> and the \
         <a rel=\"tag\" href=\"/tag/million\">million race</a> are both in this paragraph of the story itself.</p>\
         <strong>Tags<br><a rel=\"tag\" href=\"/tag/stock-car-2018\">stock car 2018</a>, \
         <a rel=\"tag\" href=\"/tag/interlagos\">interlagos</a>, <a rel=\"tag\" href=\"/tag/cascavel\">cascavel</a></strong>\
         <ul class=\"post-topics\"><li><a rel=\"tag\" href=\"/tag/motorsport\">motorsport season</a></li>\
         <li><a rel=\"tag\" href=\"/tag/brazil\">brazil</a></li><li><a rel=\"tag\" href=\"/tag/velopark\">velopark</a></li></ul>\
         </div></body></html>"
    );
    let o = observe_html(&page, "https://racing.example/calendar", &ObserveOptions::default());
    assert!(o.text.contains("Paragraph 5:"), "{}", o.text);
    assert!(o.text.contains("Prose with tags: this year's calendar and the million race"), "{}", o.text);
    assert!(!o.text.contains("stock car 2018"), "the tag links were read:\n{}", o.text);
    assert!(!o.text.contains("motorsport season"), "the tag list was read:\n{}", o.text);
}

#[test]
fn embedded_posts_the_story_quotes_are_read_and_share_buttons_are_not() {
    let paragraph = |n: u32| {
        format!(
            "<p>Paragraph {n}: the state's new campaign against the drug drew more attention online than \
             its makers had planned, and not the kind they had hoped for.</p>"
        )
    };
    let tweet = |n: u32| {
        format!(
            "<div class=\"social-media-embed\"><blockquote class=\"twitter-tweet\"><p>Tweet {n}: yes this is \
             real and yes the state spent half a million on it <a href=\"https://t.co/x{n}\">https://t.co/x{n}</a></p>\
             — Someone (@someone{n}) <a href=\"https://twitter.com/someone/status/{n}\">November 18, 2019</a></blockquote></div>"
        )
    };
    let body = numbered(4, |n| format!("{}{}", paragraph(n), tweet(n)));
    let page = format!(
        "<html><body><div class=\"article\"><h1>Meth. We're on it.</h1>{body}\
         <div class=\"social-share\"><a href=\"/share/fb\">Share on Facebook</a> <a href=\"/share/x\">Share on X</a></div>\
         </div></body></html>"
    );
    let o = observe_html(&page, "https://news.example/campaign", &ObserveOptions::default());
    for n in 1..=4 {
        assert!(o.text.contains(&format!("Paragraph {n}:")), "paragraph {n} missing:\n{}", o.text);
        assert!(o.text.contains(&format!("Tweet {n}: yes this is real")), "tweet {n} missing:\n{}", o.text);
    }
    assert!(!o.text.contains("Share on Facebook"), "the share buttons were read:\n{}", o.text);
}

#[test]
fn paragraphs_with_a_link_inside_that_end_in_an_ellipsis_are_no_excerpts() {
    // The story continues in a second box whose paragraphs each quote an interview through a
    // link and trail off with "…": they open with the story's own words, not a linked title.
    let paragraphs = numbered(5, |n| {
        format!(
            "<p>Paragraph {n}: the minister said the plan, which was agreed on Monday after weeks of talks, \
             would cut waiting times, raise pay, and keep clinics open at night.</p>"
        )
    });
    let quoted = numbered(3, |n| {
        format!(
            "<p>Quoted {n}: as the minister told <a href=\"/interview/{n}\">an interview with this paper last \
             week</a>, the plan is, in her words, only the start of something larger, and of a longer, harder road…</p>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><div class=\"page\"><div class=\"story-top\"><h1>The plan</h1>\
         {paragraphs}</div><div class=\"story-more\">{quoted}</div></div></body></html>"
    );
    let o = observe_html(&page, "https://news.example/plan", &ObserveOptions::default());
    for n in 1..=3 {
        assert!(o.text.contains(&format!("Quoted {n}:")), "quoted paragraph {n} missing:\n{}", o.text);
    }
}

#[test]
fn content_found_inside_the_declared_article_body_is_lifted_to_all_of_it() {
    // The paragraphs score highest, but the body the page declares opens with a list of
    // highlights: that list is the story's too.
    let paragraphs = numbered(8, |n| {
        format!(
            "<p>Paragraph {n}: the president went to the hospital on Saturday for what the White House called \
             a routine visit, and aides said he was in good health.</p>"
        )
    });
    let highlights = numbered(4, |n| format!("<li>Point {n}: the visit was not on his schedule</li>"));
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><article><h1>Hospital visit</h1><div itemprop=\"articleBody\">\
         <ul class=\"highlights\">{highlights}</ul><div class=\"zn-body\"><div class=\"l-container\">{paragraphs}</div>\
         </div></div><div class=\"share\"><a href=\"/s\">Share</a></div></article></body></html>"
    );
    let o = observe_html(&page, "https://news.example/visit", &ObserveOptions::default());
    assert!(o.text.contains("Paragraph 8:"), "{}", o.text);
    for n in 1..=4 {
        assert!(o.text.contains(&format!("Point {n}:")), "highlight {n} missing:\n{}", o.text);
    }
    let primary = o.primary.expect("a primary element");
    assert!(primary.text.starts_with("Point 1:"), "primary is not the declared body: {}", primary.text);
}

#[test]
fn a_link_heavy_footer_is_not_the_content_of_a_page_whose_content_is_drawn_by_scripts() {
    // The product is drawn by a script into an empty box; what the markup holds is the site's
    // footer: columns of links, each column long enough to pass for a paragraph.
    let columns = numbered(4, |n| {
        let links = numbered(6, |m| format!("<a href=\"/help/{n}/{m}\">Help topic {n}.{m}</a>, "));
        format!("<div class=\"col\"><h5>Column {n}</h5><div class=\"links\">{links}</div></div>")
    });
    let page = format!(
        "<html><head><title>Keyboard</title></head><body><div id=\"root\"></div>\
         <footer><div class=\"site-footer\">{columns}</div></footer></body></html>"
    );
    let o = observe_html(&page, "https://shop.example/item/1", &ObserveOptions::default());
    assert!(!o.text.contains("Help topic"), "the footer was read as the content:\n{}", o.text);
}

#[test]
fn a_page_wide_form_holding_long_menus_and_the_article_is_the_page() {
    // ASP.NET pages wrap the whole page in one <form>; its menus make most of its text links.
    let menu = numbered(60, |n| format!("<li><a href=\"/section/{n}\">Menu section {n}</a></li>"));
    let paragraphs = numbered(3, |n| {
        format!(
            "<p>Paragraph {n}: two service members were killed when their helicopter came down in the east of \
             the country on Wednesday, officials said.</p>"
        )
    });
    let page = format!(
        "<html><body><form id=\"aspnetForm\" action=\"/news\"><ul class=\"menu\">{menu}</ul>\
         <div class=\"story\"><h1>Helicopter crash</h1>{paragraphs}</div></form></body></html>"
    );
    let o = observe_html(&page, "https://news.example/crash", &ObserveOptions::default());
    for n in 1..=3 {
        assert!(o.text.contains(&format!("Paragraph {n}:")), "paragraph {n} missing:\n{}", o.text);
    }
}

#[test]
fn a_first_line_repeating_the_title_is_left_out_whatever_its_tag() {
    // The headline is a styled paragraph, not an <h1>: it is still the title, which the
    // observation carries already.
    let paragraphs = numbered(4, |n| {
        format!(
            "<p>Paragraph {n}: the team found two of the five cars of the unit broken into this morning, \
             their batteries gone and their doors damaged.</p>"
        )
    });
    let page = format!(
        "<html><head><title>Home care unit reports cars broken into</title></head><body>\
         <nav><a href=\"/\">Home</a></nav><div class=\"col-md-9\"><p class=\"titulo\">Home care unit reports \
         cars broken into</p>{paragraphs}</div></body></html>"
    );
    let o = observe_html(&page, "https://city.example/news/1", &ObserveOptions::default());
    assert_eq!(o.title, "Home care unit reports cars broken into");
    assert!(!o.text.contains("Home care unit reports"), "the title is read twice:\n{}", o.text);
    assert!(o.text.starts_with("Paragraph 1:"), "{}", o.text);
}

#[test]
fn links_to_the_next_and_previous_story_are_left_out() {
    let paragraphs = numbered(5, |n| {
        format!(
            "<p>Paragraph {n}: the convertible keeps the coupe's V8 and adds braces under the floor to make up \
             for the roof it no longer has.</p>"
        )
    });
    let teaser = |which: &str, title: &str| {
        format!(
            "<div class=\"grid-x {which}\"><p><a href=\"/news/{which}\">{which} story</a></p><div class=\"row-desc\">\
             <a href=\"/news/{which}\"><h5>{title}</h5></a><p class=\"row-excerpt\">What the {which} story is about, \
             in one line of its own</p><label>Staff writer 2019-11-20 17:27</label></div></div>"
        )
    };
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><div class=\"article\"><h1>The convertible</h1>{paragraphs}\
         <div class=\"grid-container next-prev\">{}{}</div></div></body></html>",
        teaser("next", "A hot hatch with a rear wing"),
        teaser("prev", "A seven-seater under four metres")
    );
    let o = observe_html(&page, "https://cars.example/convertible", &ObserveOptions::default());
    assert!(o.text.contains("Paragraph 5:"), "{}", o.text);
    for absent in ["hot hatch", "seven-seater", "What the next story"] {
        assert!(!o.text.contains(absent), "{absent:?} was read:\n{}", o.text);
    }
}

#[test]
fn a_link_wrapped_in_a_span_inside_a_sentence_is_read_with_it() {
    let paragraphs = numbered(8, |n| {
        format!(
            "<p>Paragraph {n}: an insider has reported that <span class=\"link\"><a href=\"/news/{n}\">the league \
             will fine the quarterback</a></span> for his role in the fight, and the club said it would appeal.</p>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><div class=\"article\"><h1>The fight</h1>{paragraphs}</div>\
         </body></html>"
    );
    let o = observe_html(&page, "https://sports.example/fight", &ObserveOptions::default());
    for n in 1..=8 {
        assert!(
            o.text.contains(&format!(
                "Paragraph {n}: an insider has reported that the league will fine the quarterback for"
            )),
            "a sentence lost its link:\n{}",
            o.text
        );
    }
}

#[test]
fn a_collapsed_faq_answer_after_its_question_is_read() {
    let faqs = numbered(3, |n| {
        format!(
            "<div class=\"in-page-faq\"><div class=\"faq__question\">Question {n}: what is an online certificate? \
             <div class=\"reveal\"><span></span></div></div><div class=\"faq__answer\" style=\"display: none;\">\
             <div>Answer {n}: a certificate is non-degree training on one subject, taken online at your own pace, \
             in two or three hours.</div></div></div>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><main><h1>Certificates</h1><p>Our certificate courses give \
         you job-role training and formal workplace skills in fewer than three hours.</p><div class=\"faqs\"><h2>\
         Frequently asked questions</h2>{faqs}</div></main></body></html>"
    );
    let o = observe_html(&page, "https://learn.example/certificates", &ObserveOptions::default());
    for n in 1..=3 {
        assert!(o.text.contains(&format!("Answer {n}:")), "answer {n} missing:\n{}", o.text);
    }
}

#[test]
fn content_found_in_one_part_of_the_main_element_is_widened_to_all_of_it() {
    // A reference page: its summary section has the only real paragraphs, and the sections
    // after it are lists of short terms and definitions, all inside <main>.
    let summary = numbered(3, |n| {
        format!(
            "<p>Summary {n}: the WebSocket object provides the API for creating and managing a WebSocket \
             connection to a server, and for sending and receiving data on it.</p>"
        )
    });
    let members = |section: &str| {
        numbered(8, |n| format!("<dt><code>WebSocket.{section}{n}</code></dt><dd>What {section} {n} does.</dd>"))
    };
    let page = format!(
        "<html><body><header><nav><a href=\"/\">Docs</a> <a href=\"/api\">APIs</a></nav></header>\
         <div class=\"layout\"><main><div class=\"reference-header\"><h1>WebSocket</h1><section class=\"content-section\">\
         {summary}</section></div><div class=\"reference-body\"><section class=\"content-section\"><h2>Properties</h2>\
         <dl>{}</dl></section><section class=\"content-section\"><h2>Methods</h2><dl>{}</dl></section></div></main>\
         <aside class=\"left-sidebar\"><nav><a href=\"/a\">Another API</a></nav></aside></div></body></html>",
        members("property"),
        members("method")
    );
    let o = observe_html(&page, "https://docs.example/WebSocket", &ObserveOptions::default());
    assert!(o.text.contains("Summary 3:"), "{}", o.text);
    for needle in ["WebSocket.property8", "What method 8 does."] {
        assert!(o.text.contains(needle), "{needle:?} missing:\n{}", o.text);
    }
}

#[test]
fn a_consent_panel_is_chrome_however_many_paragraphs_it_holds() {
    // A recipe collection is a grid of linked cards, with no paragraphs of its own; the cookie
    // preferences panel is paragraphs from top to bottom.
    let cards = numbered(12, |n| {
        format!(
            "<div class=\"card\"><a href=\"/recipe/{n}\"><span class=\"card-title\">Tomato sauce recipe {n}</span></a></div>"
        )
    });
    let purposes = numbered(5, |n| {
        format!(
            "<p>Purpose {n}: these cookies allow us to count visits and traffic sources so we can measure and \
             improve the performance of our site and show you relevant adverts on other sites.</p>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><main><h1>Tomato sauce recipes</h1><p>Our collection of tomato \
         sauce recipes has something for every dish.</p><div class=\"grid\">{cards}</div></main>\
         <div id=\"onetrust-consent-sdk\"><div class=\"ot-pc-content\"><h2>Your privacy</h2>{purposes}</div></div>\
         </body></html>"
    );
    let o = observe_html(&page, "https://food.example/tomato-sauce", &ObserveOptions::default());
    assert!(!o.text.contains("Purpose 1:"), "the consent panel was read:\n{}", o.text);
    assert!(o.text.contains("Tomato sauce recipe 12"), "{}", o.text);
}

#[test]
fn the_publishers_closing_pitch_is_left_out_and_the_same_words_mid_story_stay() {
    let paragraphs = numbered(6, |n| {
        format!(
            "<p>Paragraph {n}: the state's new campaign asks readers to subscribe to nothing; it says meth is a \
             problem and the state is on it, and the internet has had a lot to say.</p>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><div class=\"entry\"><h1>The campaign</h1>{paragraphs}\
         <p>Have a tip? Our reporter may be reached at tips@news.example. Follow her on Twitter @reporter.</p>\
         <p>Get the latest updates right in your inbox. Subscribe to our newsletters.</p></div></body></html>"
    );
    let o = observe_html(&page, "https://news.example/campaign", &ObserveOptions::default());
    assert!(o.text.contains("Paragraph 6:"), "{}", o.text);
    assert!(o.text.contains("asks readers to subscribe to nothing"), "{}", o.text);
    for pitch in ["Have a tip?", "Get the latest updates"] {
        assert!(!o.text.contains(pitch), "{pitch:?} was read:\n{}", o.text);
    }
}

#[test]
fn customer_reviews_are_not_the_product_however_much_they_say() {
    // The product says what it is in a few short blocks; its reviews are paragraphs.
    let features =
        numbered(10, |n| format!("<li>Feature {n}: holds its ground on carpet, tile and wooden floors</li>"));
    let reviews = numbered(8, |n| {
        format!(
            "<div class=\"review\"><p>Review {n}: this mat saved our carpet, and I wish I had bought it sooner; it \
             stays flat, it does not smell, and the dog has not chewed it yet.</p><span>Customer {n}</span></div>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><div class=\"shopify-section product\"><h1>Gorilla Mat</h1>\
         <p>Safe for your whole family.</p><ul class=\"features\">{features}</ul><p>$49.99</p></div>\
         <section class=\"shopify-section gm-reviews-section-wrapper\"><h2>What customers say</h2>{reviews}</section>\
         </body></html>"
    );
    let o = observe_html(&page, "https://shop.example/mat", &ObserveOptions::default());
    assert!(o.text.contains("Feature 10:"), "the product is missing:\n{}", o.text);
    assert!(!o.text.contains("Review 1:"), "the reviews were read as the product:\n{}", o.text);
}

#[test]
fn blocks_of_the_primarys_own_kind_stay_whatever_negative_word_their_class_holds() {
    // A product page told in feature blades, each named "mediaClass" ("media" is a word of
    // boilerplate): the blades are the page.
    let blades = numbered(6, |n| {
        format!(
            "<div class=\"feature-blade blade_{} mediaClass\"><div class=\"feature-gallery\"><div class=\"copy-wrap\">\
             <div class=\"gallery-copy\"><div class=\"headline\"><p>Feature {n}</p></div><div class=\"description\">\
             <p>Blade {n}: {}</p></div></div></div></div></div>",
            n % 2 + 1,
            // The first blade says the most; the others a line each.
            if n == 1 {
                "a 16-inch mobile workstation with the power of a desktop, built for professionals who work on \
                 the move, with room for big models, long renders, many tabs, and a battery that lasts, \
                 which is rare, in a case this thin, for a machine this fast, at this price. It runs the \
                 certified apps of engineers, architects and designers, with a workstation graphics card, \
                 up to 96 GB of memory, two SSD slots, a 4K screen option, and the ports a studio needs, \
                 from Thunderbolt to HDMI, so no dongle has to come along."
            } else {
                "a quieter fan and a cooler keyboard under load"
            }
        )
    });
    // The site's footer holds as much text again, so the blades' class is no page builder's.
    let links = numbered(60, |n| format!("<a href=\"/help/{n}\">Help and support topic {n}</a> "));
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><main><h1>ThinkPad P16s</h1><div>\
         <section class=\"container features_container\">{blades}</section></div></main><footer>{links}</footer>\
         </body></html>"
    );
    let o = observe_html(&page, "https://shop.example/p16s", &ObserveOptions::default());
    for n in 1..=6 {
        assert!(o.text.contains(&format!("Blade {n}:")), "blade {n} missing:\n{}", o.text);
    }
}

#[test]
fn story_endings_that_only_sound_like_a_pitch_stay() {
    let paragraphs = numbered(6, |n| {
        format!(
            "<p>Paragraph {n}: the health board said the first doses had reached the region's hospitals on \
             Monday and that nurses had begun giving them to staff over sixty.</p>"
        )
    });
    let page = format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><div class=\"story\"><h1>Doses arrive</h1>{paragraphs}\
         <p>Others in the region are expected to follow him.</p><p>The rest will be delivered to clinics next \
         month.</p></div></body></html>"
    );
    let o = observe_html(&page, "https://news.example/doses", &ObserveOptions::default());
    for ending in ["expected to follow him.", "delivered to clinics next month."] {
        assert!(o.text.contains(ending), "{ending:?} was left out:\n{}", o.text);
    }
    // A page with little else: its sign-up lines are what it says.
    let page = "<html><body><main><h1>Newsletter</h1><p>Sign up for our weekly letter.</p><p>Get the latest \
                recipes in your inbox.</p><p>Subscribe below.</p></main></body></html>";
    let o = observe_html(page, "https://food.example/newsletter", &ObserveOptions::default());
    assert!(o.text.contains("Subscribe below."), "{}", o.text);
}

#[test]
fn a_first_line_that_is_only_part_of_the_title_stays() {
    let paragraphs = numbered(5, |n| {
        format!(
            "<p>Paragraph {n}: the council voted on Tuesday to close the old bridge to cars, and cyclists say \
             the town will be the better for it.</p>"
        )
    });
    let page = format!(
        "<html><head><title>The old bridge should have closed to cars years ago</title></head><body>\
         <div class=\"story\"><div class=\"kicker\">Old bridge</div>{paragraphs}</div></body></html>"
    );
    let o = observe_html(&page, "https://news.example/bridge", &ObserveOptions::default());
    assert!(o.text.starts_with("Old bridge\n"), "{}", o.text);
}
