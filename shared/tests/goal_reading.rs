//! Goals read against real markup (issue #56): the page observed as the content script observes
//! it, then the goal read and proposed against that observation. Each case is a kind of page a
//! proposal failed on: a field with no label tied to it, a control wired up in script, a kind of
//! element named instead of a caption, a page action that shares a word with history, and a run
//! whose second stage appears only once the first is done.

use laika_shared::goal::{DoneCall, ProposedCall, propose, propose_next};
use laika_shared::html::observe_html;
use laika_shared::observation::Observation;
use laika_shared::observe::ObserveOptions;

const URL: &str = "http://127.0.0.1:8000/task.html";

fn observe(body: &str) -> Observation {
    let html = format!("<!doctype html><html><head><title>Task</title></head><body>{body}</body></html>");
    observe_html(&html, URL, &ObserveOptions::default())
}

/// The caption of the element a call targets.
fn caption(call: &ProposedCall, page: &Observation) -> String {
    call.handle_id().and_then(|h| page.element(h)).map(|e| e.text.clone()).unwrap_or_default()
}

/// The calls as `name caption [value]` lines, for readable assertions.
fn said(calls: &[ProposedCall], page: &Observation) -> Vec<String> {
    calls
        .iter()
        .map(|c| {
            let value = ["text", "value", "url"].iter().find_map(|k| c.arguments.get(*k).and_then(|v| v.as_str()));
            match value {
                Some(v) => format!("{} {} = {v}", c.name, caption(c, page)),
                None => format!("{} {}", c.name, caption(c, page)),
            }
        })
        .collect()
}

#[test]
fn an_unlabelled_field_is_the_one_meant_when_the_goal_names_only_its_kind() {
    let page = observe(r#"<div id="area"><input type="text"><button>Submit</button></div>"#);
    let calls = propose(r#"Enter "Kiersten" into the text field and press Submit."#, &page);
    assert_eq!(said(&calls, &page), ["browser.type  = Kiersten", "browser.click Submit"]);
}

#[test]
fn a_label_beside_its_field_names_it() {
    let page = observe(
        r#"<form><label>Username</label><input type="text" id="u"><label>Email</label><input type="text" id="e">
        <button>Login</button></form>"#,
    );
    assert_eq!(page.elements[0].text, "Username", "{:?}", page.elements);
    let calls = propose("Type ada into the email field", &page);
    assert_eq!(said(&calls, &page), ["browser.type Email = ada"]);
}

#[test]
fn a_named_field_the_page_does_not_label_is_its_only_field() {
    let page = observe(r#"<p>Your name:</p><input type="text"><button>Go</button>"#);
    let calls = propose("type Maria into the name box", &page);
    assert_eq!(said(&calls, &page), ["browser.type  = Maria"]);
}

#[test]
fn a_control_wired_in_script_is_an_element() {
    let page = observe(
        r#"<div id="area"><span onclick="pick(1)">Mumbai</span> <span tabindex="0">Lima</span>
        <span>Plain text</span></div>"#,
    );
    let captions: Vec<&str> = page.elements.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(captions, ["Mumbai", "Lima"], "{:?}", page.elements);
    assert!(page.elements.iter().all(|e| e.role == "button"));
    let calls = propose("Click on Lima", &page);
    assert_eq!(said(&calls, &page), ["browser.click Lima"]);
}

#[test]
fn a_kind_of_element_named_alone_is_the_page_s_element_of_that_kind() {
    let page = observe(r#"<a href="/help">Help</a><button>ok</button>"#);
    let calls = propose("Click the button.", &page);
    assert_eq!(said(&calls, &page), ["browser.click ok"]);
    // A caption still decides when the goal names one.
    let calls = propose("Click the Help link.", &page);
    assert_eq!(said(&calls, &page), ["browser.click Help"]);
}

#[test]
fn a_page_action_comes_before_history() {
    let page = observe(r#"<div class="email"><button>Reply</button><button>Forward</button></div>"#);
    let calls = propose("Forward the email to Jane", &page);
    assert_eq!(said(&calls, &page), ["browser.click Forward"]);
    // With nothing on the page to do it, the browser's history does.
    let bare = observe("<p>Nothing to press.</p>");
    assert_eq!(said(&propose("go back", &bare), &bare), ["browser.back "]);
}

#[test]
fn a_collapsed_section_is_opened_first_and_its_content_follows_in_the_next_step() {
    let collapsed =
        r#"<h3 role="button">Section #1</h3><div style="display:none"><p>Text.</p><button>Submit</button></div>"#;
    let before = observe(collapsed);
    let goal = "Expand the section below and click submit.";
    let first = propose(goal, &before);
    assert_eq!(said(&first, &before), ["browser.click Section #1"]);
    // The next step reads the page as it is once the section is open, without what was done.
    let done: Vec<DoneCall> = first.iter().map(|c| DoneCall::of(&c.name, &c.arguments, &before)).collect();
    let open = observe(&collapsed.replace(r#" style="display:none""#, ""));
    let next = propose_next(goal, &open, &done);
    assert_eq!(said(&next, &open), ["browser.click Submit"]);
    // And once that is done too, nothing is left.
    let done: Vec<DoneCall> =
        done.into_iter().chain(next.iter().map(|c| DoneCall::of(&c.name, &c.arguments, &open))).collect();
    assert!(propose_next(goal, &open, &done).is_empty());
}

#[test]
fn a_two_stage_goal_finishes_on_the_page_the_first_stage_opens() {
    let tabs = |open: usize| {
        let panel = |i: usize, body: &str| {
            let hidden = if i == open { "" } else { r#" style="display:none""# };
            format!(r#"<div id="tab{i}"{hidden}>{body}</div>"#)
        };
        observe(&format!(
            r##"<ul><li><a href="#tab1">Tab #1</a></li><li><a href="#tab2">Tab #2</a></li></ul>{}{}"##,
            panel(1, "<p>Nothing here.</p>"),
            panel(2, r##"<a href="#q">Quisque</a> <a href="#l">Lacinia</a>"##)
        ))
    };
    let goal = "Open Tab #2 and click on \"Lacinia\".";
    let first_page = tabs(1);
    let first = propose(goal, &first_page);
    assert!(said(&first, &first_page).iter().any(|s| s == "browser.click Tab #2"), "{:?}", said(&first, &first_page));
    let done: Vec<DoneCall> = first.iter().map(|c| DoneCall::of(&c.name, &c.arguments, &first_page)).collect();
    let second_page = tabs(2);
    let next = propose_next(goal, &second_page, &done);
    assert_eq!(said(&next, &second_page), ["browser.click Lacinia"]);
}

#[test]
fn what_was_done_is_matched_by_tool_caption_and_value() {
    let page = observe(r#"<input type="text" aria-label="Name"><button>Save</button>"#);
    let calls = propose("type Ada into Name and click Save", &page);
    assert_eq!(said(&calls, &page), ["browser.type Name = Ada", "browser.click Save"]);
    let typed = DoneCall::of(&calls[0].name, &calls[0].arguments, &page);
    // Typed already: only the click is left; a different value is a different call.
    assert_eq!(
        said(&propose_next("type Ada into Name and click Save", &page, std::slice::from_ref(&typed)), &page),
        ["browser.click Save"]
    );
    assert_eq!(
        said(&propose_next("type Bo into Name and click Save", &page, &[typed]), &page),
        ["browser.type Name = Bo", "browser.click Save"]
    );
}

#[test]
fn a_kind_named_in_quotes_is_an_element_of_that_kind() {
    let page = observe(
        r#"<div class="widget"><label><input type="radio" name="r">ipsum</label></div>
        <div class="widget"><input type="text" value="lorem"></div>
        <div class="widget"><textarea>dolor</textarea></div>
        <div class="widget"><button>amet</button></div>"#,
    );
    let kinds = [("radio", "input"), ("text", "input"), ("textarea", "textarea"), ("button", "button")];
    for (kind, tag) in kinds {
        let calls = propose(&format!(r#"Click on a "{kind}" widget."#), &page);
        assert_eq!(calls.len(), 1, "{kind}: {calls:?}");
        let element = page.element(calls[0].handle_id().unwrap()).unwrap();
        assert_eq!(element.tag.as_deref(), Some(tag), "{kind}: {element:?}");
        assert_eq!(calls[0].name, "browser.click");
    }
}

#[test]
fn a_small_word_in_capitals_is_a_caption() {
    let page = observe(r#"<button>TWO</button> <button>ONE</button>"#);
    let calls = propose("Click button ONE, then click button TWO.", &page);
    assert_eq!(said(&calls, &page), ["browser.click ONE", "browser.click TWO"]);
}

#[test]
fn a_pause_the_goal_asks_for_goes_with_the_call_after_it() {
    let page = observe(r#"<button>TWO</button> <button>ONE</button>"#);
    let calls = propose("Click button ONE, wait 3 seconds, then click button TWO.", &page);
    assert_eq!(said(&calls, &page), ["browser.click ONE", "browser.click TWO"]);
    assert_eq!((calls[0].wait_ms, calls[1].wait_ms), (None, Some(3000)));
}

#[test]
fn a_value_the_goal_points_at_is_read_from_the_page() {
    let table = observe(
        r#"<table><tr><td>Last name</td><td>Logan</td></tr><tr><td>Country</td><td>Kyrgyzstan</td></tr></table>
        <input type="text"><button>Submit</button>"#,
    );
    let calls = propose("Enter the value of Country into the text field and press Submit.", &table);
    assert_eq!(said(&calls, &table), ["browser.type  = Kyrgyzstan", "browser.click Submit"]);

    let paragraph = observe(r#"<p>Nec, eget magna accumsan tortor.</p><input type="text"><button>Submit</button>"#);
    let goal = r#"Find the 3rd word in the paragraph, type that into the textbox and press "Submit"."#;
    assert_eq!(said(&propose(goal, &paragraph), &paragraph), ["browser.type  = magna", "browser.click Submit"]);

    let problem = observe(r#"<div>8 - x = 75</div><div>x =</div><input type="text"><button>Submit</button>"#);
    let goal = "Solve for x and type your answer into the textbox. Press Submit when done.";
    assert_eq!(said(&propose(goal, &problem), &problem), ["browser.type  = -67", "browser.click Submit"]);
}

#[test]
fn a_value_that_cannot_be_read_submits_nothing() {
    // The answer to a problem the page does not state: no typing, and no Submit without it.
    let page = observe(r#"<p>Think of a number.</p><input type="text"><button>Submit</button>"#);
    let calls = propose("Type your answer into the textbox and press Submit.", &page);
    assert!(calls.is_empty(), "{:?}", said(&calls, &page));
}

#[test]
fn a_value_no_list_offers_is_typed_into_the_field_named() {
    let spinner =
        observe(r#"<label for="s">Select a value:</label><input id="s" name="value"><button>Submit</button>"#);
    let calls = propose("Select 7 with the spinner and hit Submit.", &spinner);
    assert_eq!(said(&calls, &spinner), ["browser.type Select a value: = 7", "browser.click Submit"]);
    let date = observe(r#"<p>Date: <input type="text" id="datepicker"></p><button>Submit</button>"#);
    assert_eq!(date.elements[0].text, "Date");
    let calls = propose("Select 12/26/2016 as the date and hit submit.", &date);
    assert_eq!(said(&calls, &date), ["browser.type Date = 12/26/2016", "browser.click Submit"]);
}

#[test]
fn the_only_list_takes_the_values_a_goal_names_for_it() {
    let page = observe(
        r#"<select multiple><option>Lima</option><option>Montserrat</option><option>Quito</option></select><button>Submit</button>"#,
    );
    let calls = propose("Select Montserrat, Quito from the scroll list and click Submit.", &page);
    assert_eq!(
        said(&calls, &page),
        ["browser.select  = Montserrat", "browser.select  = Quito", "browser.click Submit"]
    );
}

#[test]
fn a_menu_path_is_a_click_on_each_item_as_it_shows() {
    let closed = observe(r#"<ul role="menu"><li role="menuitem">Junia</li><li role="menuitem">Monica</li></ul>"#);
    let goal = "Select Monica>Bethena>Billie";
    let first = propose(goal, &closed);
    assert_eq!(said(&first, &closed), ["browser.click Monica"]);
    let done: Vec<DoneCall> = first.iter().map(|c| DoneCall::of(&c.name, &c.arguments, &closed)).collect();
    let open = observe(
        r#"<ul role="menu"><li role="menuitem">Junia</li><li role="menuitem">Monica
        <ul role="menu"><li role="menuitem">Bethena</li><li role="menuitem">Ellis</li></ul></li></ul>"#,
    );
    assert_eq!(said(&propose_next(goal, &open, &done), &open), ["browser.click Bethena"]);
}

#[test]
fn each_labelled_field_takes_its_label_s_value_from_the_page() {
    let page = observe(
        r#"<table><tr><td>Gender</td><td>Female</td></tr><tr><td>Country</td><td>Maldives</td></tr></table>
        <p>Country: <input type="text"></p><p>Gender: <input type="text"></p><button>Submit</button>"#,
    );
    let goal = "Enter the value that corresponds with each label into the form and submit when done.";
    let calls = propose(goal, &page);
    assert_eq!(
        said(&calls, &page),
        ["browser.type Country = Maldives", "browser.type Gender = Female", "browser.click Submit"]
    );
}
