//! The grounding gate on sentences SmolLM2-135M really wrote about real pages, each read and
//! labelled by hand against its page: the gate must refuse every sentence the page does not
//! support in meaning (roles swapped, a word added, a compound the page never writes, words
//! picked from far apart, a stutter), and must still release faithful ones (a gate that refuses
//! everything would pass the first half alone).
//!
//! The sentences come from `cargo xtask bench quality` runs (`LAIKA_DEBUG=1`, the verdicts in
//! `llm.jsonl`) and from `laika-host summarize` on Readability pages outside the bench list; the
//! pages are read from `shared/corpora` (dev splits only), never copied here.

use flate2::read::GzDecoder;
use laika_shared::grounding::{self, PageIndex};
use laika_shared::html::HtmlDom;
use laika_shared::observe::{ObserveOptions, observe};
use std::io::Read;
use std::path::PathBuf;

fn corpora() -> PathBuf {
    std::env::var_os("LAIKA_CORPORA").map(PathBuf::from).unwrap_or_else(|| {
        std::path::PathBuf::from(
            std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
        )
        .join("../../shared/corpora")
    })
}

/// The page as the summary service grounds against it: observed text and comments, with the title.
fn page(name: &str) -> PageIndex {
    let corpora = corpora();
    let (path, url) = match name.strip_prefix("wcxb-") {
        Some(id) => (corpora.join(format!("wcxb/dev/html/{id}.html.gz")), format!("https://wcxb.example/{id}")),
        None => {
            let name = name.strip_prefix("readability-").unwrap_or(name);
            (corpora.join(format!("readability/{name}/source.html")), format!("https://readability.example/{name}"))
        }
    };
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut html = String::new();
    if path.extension().is_some_and(|e| e == "gz") {
        GzDecoder::new(file).read_to_string(&mut html).unwrap();
    } else {
        std::io::BufReader::new(file).read_to_string(&mut html).unwrap();
    }
    let observation = observe(&HtmlDom::parse(&html), &url, &ObserveOptions::unbounded());
    PageIndex::with_title(&grounding::page_corpus(&observation), &observation.title)
}

/// (page, sentence the model wrote, why it is not what the page says)
const UNFAITHFUL: &[(&str, &str, &str)] = &[
    (
        "wcxb-0415",
        "Most of those kernels are designed for 1-byte Unicode sequences, which cover a lot of European languages.",
        "the kernels are designed around 1- and 2-byte sequences",
    ),
    (
        "wcxb-4160",
        "A Bread Machine that can bake any type of loaf.",
        "the page says most machines bake bread in several sizes, not any type of loaf",
    ),
    (
        "wcxb-0457",
        "Less than half of building companies aren’t offering a hot drink to homeowners.",
        "roles swapped: the page's homeowners don't offer their builder a drink",
    ),
    ("wcxb-0588", "Full-grain, sustainably sourced, and patina-free.", "the leather develops a patina"),
    (
        "wcxb-0167",
        "The Google Cloud content is perfect for scoring tech scholarships and is also available for women in tech and military veterans.",
        "the scholarship programs are for women in tech and veterans, not the Google Cloud content",
    ),
    (
        "wcxb-0370",
        "In his five-year career, Manpreet has worked both at a carrier and an insurance firm, now at Aon Consulting.",
        "he worked at a carrier and a consulting firm: a carrier is the insurer",
    ),
    (
        "wcxb-0588",
        "Free Screen Protector with Full-grain leather.",
        "the free screen protector comes with a case; the case is of leather",
    ),
    (
        "readability-medicalnewstoday",
        "A new study investigates how the brain's \"a-ha!\" moment is tied to awareness of having made a decision.",
        "the page only asks whether the moment could be tied to the awareness of having decided",
    ),
    (
        "wcxb-4680",
        "The best board game is Warfighter.",
        "the page lists the staff's favourite games of 2025; Warfighter is one writer's favourite game new to him",
    ),
    (
        "wcxb-3036",
        "Sociallyin is a social-innovative agency specializing in creative strategy and content production.",
        "the page says social-first",
    ),
    (
        "readability-wikia",
        "The Star Wars saga is set to be re-released for 40 years to celebrate its 40th anniversary.",
        "re-released for its 40th anniversary, not for 40 years",
    ),
    (
        "readability-citylab-1",
        "A 20th-century example of modern ambitions is re-created with all caps and dashes in de Miranda’s introduction.",
        "words from across the page, a claim it never makes",
    ),
    (
        "readability-guardian-1",
        "Māori tribes' fear of whale strandings and their expert on marine stranding.",
        "nobody's fear is told of",
    ),
    (
        "readability-ars-1",
        "A computer programmer has released a flaw in Minecraft that makes it easy for anyone to crash servers, according to a code that exploits a vulnerability.",
        "the programmer released code exploiting the flaw, not the flaw",
    ),
    (
        "readability-webmd-1",
        "Life-threatening peanut allergies: Babies who eat peanuts may have been on the rise, with little hope for cure.",
        "the allergies have been on the rise, not babies who eat peanuts",
    ),
    ("wcxb-1066", "Catering Tips is a delightful and delightful service!", "a stutter, and no such claim"),
    ("wcxb-4680", "The best board games are also also some of the best games for all time for all.", "a stutter"),
    (
        "wcxb-1066",
        "Include a line item called discretionary gratuities and include a 5% tip depending on service level.",
        "the post says a 5-20% tip: one end of the range given as the figure",
    ),
    (
        "wcxb-0631",
        "Almondina is a delicious and crunchy almond crisps with no cholesterol, dairy, preservatives, and salt.",
        "the crisps have no added fat and salt, not no salt",
    ),
    (
        "wcxb-0020",
        "The average cost of online college is significantly greater than for college students general.",
        "the page says cost is a greater concern for online students; their cost per credit hour is equal",
    ),
    (
        "wcxb-4160",
        "The bread machine can bake 2-pound loaves every time.",
        "the reviewers were skeptical of that, and the largest batches hit the lid and deflated",
    ),
    (
        "readability-wikipedia-3",
        "A square matrix is Hermitian if and only if it is diagonalizable.",
        "only if it is unitarily diagonalizable with real eigenvalues: many diagonalizable matrices are not Hermitian",
    ),
    (
        "wcxb-0370",
        "A question asked by candidates to their first actuarial job.",
        "the candidates are searching for their first actuarial job; the question is not asked to it",
    ),
    (
        "readability-theverge",
        "Apple’s Vision Pro is Apple’s Retina display moment.",
        "the Vision Pro is the Retina display moment for headsets, the industry's, not Apple's",
    ),
    (
        "wcxb-4017",
        "The ProsourceFit Extra-Thick Yoga & Pilates Mat is designed to take pressure off joints and move freely.",
        "the mat takes the pressure off the user's joints so that the user can move freely; the mat does not move",
    ),
    (
        "readability-medicalnewstoday",
        "A new study investigates how the brain processes unconscious information.",
        "the study investigates when the 'a-ha!' moment happens; 'brain processes' are what it is compared with",
    ),
];

/// (page, sentence the model wrote) that say what the page says. The check's price, not listed
/// here because it refuses them: faithful gists assembled from words scattered over the page and
/// its title, such as wcxb-2827's "A Linux script that can join files and devices together in
/// linear mode." and wcxb-4439's "A guide on how to build an AI news agent that can keep up with
/// AI news." (three runs, two of them lone words).
const FAITHFUL: &[(&str, &str)] = &[
    (
        "readability-bbc-1",
        "President Barack Obama has admitted his failure to pass gun laws is his biggest frustration.",
    ),
    (
        "readability-wapo-1",
        "The Tunisians accuse political Islamists of having been slow to address the growing danger of terrorism.",
    ),
    (
        "wcxb-0278",
        "A mobile app refers to software applications developed for smartphones that offer various functions.",
    ),
    ("wcxb-0167", "Bootcamps provide flexible learning and job guarantees to tech professionals."),
    ("wcxb-3023", "The Moray Driver Kit is an ideal everyday carry toolkit."),
    ("wcxb-0505", "The longer chain will still be available as an alternate chain."),
];

#[test]
fn sentences_the_page_does_not_support_are_refused() {
    let mut admitted = Vec::new();
    for (name, claim, why) in UNFAITHFUL {
        if let Ok(support) = page(name).check(claim) {
            admitted.push(format!("{name}: {claim:?} ({why}) was released, cited to {:?}", support.sentence.text));
        }
    }
    assert!(admitted.is_empty(), "{}", admitted.join("\n"));
}

#[test]
fn faithful_sentences_are_released() {
    let mut refused = Vec::new();
    for (name, claim) in FAITHFUL {
        if let Err(rejection) = page(name).check(claim) {
            refused.push(format!("{name}: {claim:?} was refused: {rejection:?}"));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

/// Shortenings SmolLM2-135M wrote when handed one key point of a dev page to say in fewer words
/// (`cargo xtask bench quality`, `LAIKA_DEBUG=1`): (page, the sentence it was given, what it
/// wrote, why that is not the sentence shortened). Each passes the page-wide gate or comes close:
/// its words are the page's. What the page-wide gate cannot see, the shortening check does.
const UNFAITHFUL_SHORTENINGS: &[(&str, &str, &str, &str)] = &[
    (
        "wcxb-0563",
        "So reading up these pans - they seem to be safe from a toxicity perspective but one catch - it seems you shouldn't use metal utensils on them as it can scratch the enamel.",
        "So reading up these pans can be a safe from toxicity perspective but one catch.",
        "\"can\" taken from a later clause: the pans seem safe; metal utensils can scratch them",
    ),
    (
        "wcxb-4256",
        "HubSpot's free CRM is the go-to starting point for startups and small teams, and the platform's evolution into a full revenue suite has made it genuinely competitive for mid-market businesses too.",
        "HubSpot's CRM has made it competitive for mid-market businesses.",
        "the platform's evolution made it competitive, not the CRM: two clauses stitched",
    ),
    (
        "wcxb-0068",
        "Needle-nose pliers are one of the most versatile, must-have electrician tools that come in handy for various electrical tasks.",
        "Needle-nose pliers - one of the most versatile tools in the electrical world.",
        "\"the electrical world\" is not in the sentence",
    ),
    (
        "wcxb-0505",
        "On 2/8/2024, the Certificate available on that URL will switch from the Long Chain to the Short Chain.",
        "On 2/8/2024.",
        "only the opener is left, which says nothing (written under the deletion shape)",
    ),
    (
        "wcxb-4833",
        "While a manual toothbrush can get the job done, many popular electric toothbrushes offer features such as pressure sensors and even facial recognition.",
        "While a manual toothbrush can get done, many popular electric toothbrushes can get done.",
        "the electric toothbrushes offer features; \"can get done\" is the manual one's, repeated",
    ),
    (
        "wcxb-4160",
        "The bread doesn’t look as artisanal as a hand-shaped loaf, but it’s great for sandwiches, toast, and more.",
        "The bread doesn’t look as artisanal as a hand-shaped loaf.",
        "the concession without the verdict it is set against: the review says the bread is great",
    ),
];

/// (page, the sentence given, a faithful shortening SmolLM2-135M wrote of it). The check is
/// conservative: it lets only set-off pieces and adverbs of manner go, so some faithful
/// shortenings are refused too ("Graduation parties are great way to commemorate years of hard
/// work." drops a clause no comma sets off). None of those is listed here; what is listed must be
/// released.
const FAITHFUL_SHORTENINGS: &[(&str, &str, &str)] = &[
    (
        "wcxb-0119",
        "This practice enhances attentional networks, regulates the default mode network, and improves stress response, offering long-term cognitive protection.",
        "This practice enhances attentional networks and regulates the default mode network.",
    ),
    (
        "wcxb-1222",
        "A framework provides a stable, well-defined structure for a software system and libraries of reusable code that can be used to accelerate development.",
        "A framework provides a stable, well-defined structure for a software system and libraries of reusable code.",
    ),
    (
        "wcxb-0563",
        "I make a lot of smash burgers and you really need to scrape well to turn them over so I don't want anything flimsy.",
        "I make a lot of smash burgers and you need to scrape well to turn them over.",
    ),
    (
        "wcxb-4317",
        "Be careful, read the manuals on every tool you own so you know the good and bad.",
        "Be careful, read the manuals on every tool you own.",
    ),
];

#[test]
fn shortenings_that_change_what_their_sentence_says_are_refused() {
    let mut admitted = Vec::new();
    for (name, source, claim, why) in UNFAITHFUL_SHORTENINGS {
        let index = page(name);
        assert!(index.text().contains(source), "{name}: the source sentence is not on the page");
        if index.check(claim).is_ok() && grounding::shortens(claim, source).is_ok() {
            admitted.push(format!("{name}: {claim:?} ({why}) was released"));
        }
    }
    assert!(admitted.is_empty(), "{}", admitted.join("\n"));
}

#[test]
fn faithful_shortenings_are_released() {
    let mut refused = Vec::new();
    for (name, source, claim) in FAITHFUL_SHORTENINGS {
        let index = page(name);
        assert!(index.text().contains(source), "{name}: the source sentence is not on the page");
        // Checked in its sentence's voice, as the summary does: a first-person sentence is
        // shortened into its author's quoted words.
        let checked = index.check_as(claim, grounding::voice(source)).map(|_| ());
        if let Err(rejection) = checked.and_then(|()| grounding::shortens(claim, source)) {
            refused.push(format!("{name}: {claim:?} was refused: {rejection:?}"));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

/// The shorter forms a small model is decoded as (`grounding::shortenings`) are the page's:
/// each passes the page-wide gate, and none is a shortening the check refuses.
#[test]
fn every_shorter_form_offered_passes_the_gate_and_none_is_a_refused_shortening() {
    let mut wrong = Vec::new();
    let sources = UNFAITHFUL_SHORTENINGS
        .iter()
        .map(|(name, source, _, _)| (name, source))
        .chain(FAITHFUL_SHORTENINGS.iter().map(|(name, source, _)| (name, source)));
    for (name, source) in sources {
        let index = page(name);
        for form in grounding::shortenings(source) {
            if let Err(rejection) = index.check_as(&form, grounding::voice(source)) {
                wrong.push(format!("{name}: {form:?} was refused by the gate: {rejection:?}"));
            }
            if UNFAITHFUL_SHORTENINGS.iter().any(|(_, _, claim, _)| *claim == form) {
                wrong.push(format!("{name}: {form:?} is a shortening the check refuses"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
