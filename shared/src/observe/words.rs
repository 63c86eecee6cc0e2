//! Every word list and threshold the reader's heuristics use, in one table, each with where it
//! came from: Readability.js's `REGEXPS` (unlikely candidates, positive and negative class
//! words), trafilatura's lists, and what the WCXB and Zyte dev pages taught (each rule was added
//! for pages of the dev splits, `cargo xtask bench extraction`). The stages refer to these by
//! name; none keeps a list of its own.

/// Elements whose text a reader never sees.
pub(super) const INVISIBLE_TEXT: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "math", "title", "meta", "link",
    // Form controls: what they hold is the user's input or a list of choices, never page text.
    "textarea", "select", "option", "optgroup", "datalist",
];

/// Elements whose text is never page text: the invisible ones, embedded media, and form
/// controls (whose text is a value or a caption, not content).
pub(super) const NEVER_TEXT: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object", "embed", "head", "meta",
    "link", "input", "select", "textarea", "option", "optgroup", "datalist", "video", "audio", "source", "track",
    "map", "area", "param", "picture", "img", "button",
];

/// Deeper than this, a subtree is ignored: no real page needs it, and it bounds the work.
pub(super) const MAX_DEPTH: usize = 512;

/// Class or id words of page chrome (Readability's "unlikely candidates", extended).
pub(super) const CHROME_WORDS: &[&str] = &[
    "-ad-",
    "ad-break",
    "adsbygoogle",
    "advert",
    "agegate",
    "ai2html",
    "banner",
    "breadcrumb",
    "combx",
    "comment",
    "community",
    "cookie",
    "consent",
    "cover-wrap",
    "disqus",
    "footer",
    "gdpr",
    "header",
    "legends",
    "masthead",
    "menu",
    "navbar",
    "nav-",
    "newsletter",
    "outbrain",
    "pager",
    "pagination",
    // Links to the next and previous story, each with its title and excerpt.
    "next-prev",
    "prev-next",
    "prevnext",
    "nextprev",
    "popup",
    "promo",
    "related",
    "remark",
    "replies",
    "rss",
    "share",
    "sharing",
    "shoutbox",
    "sidebar",
    "skip-link",
    "skyscraper",
    "social",
    "sponsor",
    "subscribe",
    "supplemental",
    "taboola",
    "toolbar",
    "trending",
    "widget",
    "yom-remote",
    // Customer reviews under a product: other people's words about the page's subject, like
    // its comments (a review site's own review is named "review", singular).
    "reviews",
];

/// Chrome words of boxes that hold paragraphs of text and still are not the page's own.
pub(super) const PARAGRAPHED_CHROME_WORDS: &[&str] = &[
    "comment",
    "community",
    "consent",
    "cookie",
    "disqus",
    "gdpr",
    "newsletter",
    "popup",
    "related",
    "remark",
    "replies",
    "reviews",
    "sidebar",
];

/// Class or id words that keep an element a content candidate despite a chrome word.
pub(super) const CONTENT_WORDS: &[&str] =
    &["article", "body", "column", "content", "main", "mathjax", "post", "story", "entry", "text", "shadow"];

pub(super) const POSITIVE_WORDS: &[&str] = &[
    "article",
    "body",
    "content",
    "entry",
    "hentry",
    "h-entry",
    "main",
    "page",
    "pagination",
    "post",
    "text",
    "blog",
    "story",
    "prose",
    "markdown",
];

pub(super) const NEGATIVE_WORDS: &[&str] = &[
    "-ad-",
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "foot",
    "footer",
    "footnote",
    "gdpr",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "tool",
    "widget",
    "byline",
    "author",
    "dateline",
    "caption",
];

/// Class or id words of a post's author card or signature.
pub(super) const PROFILE_WORDS: &[&str] = &["user", "profile", "poster", "signature", "avatar", "author"];

/// Class or id words of tab and accordion panels (and, as a part of a name, "answer": an FAQ's
/// collapsed answers).
pub(super) const PANEL_WORDS: &[&str] = &["tab-pane", "tabpanel", "tab-content", "accordion", "collapse"];

pub(super) const CHROME_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "menu",
    "menubar",
    "search",
    "alert",
    "alertdialog",
    "dialog",
];

/// How the headings of related-content blocks begin (lower case, several languages).
pub(super) const RELATED_HEADINGS: &[&str] = &[
    "related",
    "you may also like",
    "you might also like",
    "you may like",
    "you might like",
    "more from",
    "more stories",
    "more news",
    "more articles",
    // Not "Recommended" alone: Invision forums head a thread's posts "Recommended Posts".
    "recommended for you",
    "recommended stories",
    "recommended articles",
    "recommended reading",
    "read next",
    "also read",
    "read also",
    "more great",
    "editor's picks",
    "editors' picks",
    "don't miss",
    "more on this",
    "other stories",
    "você pode gostar",
    "voce pode gostar",
    "leia também",
    "leia mais",
    "veja também",
    "notícias relacionadas",
    "lee también",
    "te puede interesar",
    "artículos relacionados",
    "noticias relacionadas",
    "à lire aussi",
    "a lire aussi",
    "sur le même sujet",
    "articles similaires",
    "lesen sie auch",
    "das könnte sie auch",
    "ähnliche artikel",
    "mehr zum thema",
    "leggi anche",
    "potrebbe interessarti",
    "関連記事",
];

/// What a photo credit starts with.
pub(super) const CREDIT_STARTS: &[&str] = &[
    "(image credit",
    "image credit",
    "(photo credit",
    "photo credit",
    "credit:",
    "credits:",
    "(credit:",
    "photo:",
    "(photo:",
    "photograph:",
    "photos:",
    "image:",
    "(image:",
    "picture:",
    "getty images",
    "(getty images",
];

/// Labels of page controls and ad slots that pages leave as text.
pub(super) const UI_LABELS: &[&str] = &[
    "advertisement",
    "advert",
    "ad",
    "ads",
    "sponsored",
    "like this",
    "like loading",
    "comments",
    "comment",
    "share",
    "share this",
    "share this article",
    "share this story",
    "subscribe",
    "trending",
    "highlights",
    "explore further",
    "print article",
    "order reprints",
    "text size",
    "related",
    "related articles",
    "related stories",
    "read more",
    "you may also like",
    "more",
    "previous next",
    "our standards",
    "breaking news emails",
    "tell us what you think",
    "story continues below advertisement",
    "continue reading below",
    "scroll to continue with content",
];

/// Class or id words of a post's date, author line and other metadata.
pub(super) const METADATA_WORDS: &[&str] = &[
    // "date" also covers datestamp, datetime, pubdate, post-date, updated…
    "byline",
    "dateline",
    "date",
    "timestamp",
    "publish",
    "posted",
    "entry-meta",
    "post-meta",
    "article-meta",
    "meta-info",
    "postmeta",
    "author",
];

/// Class words of overlays, which stay chrome even when other class names are ignored, and
/// however many of the page's paragraphs they hold.
pub(super) const OVERLAY_WORDS: &[&str] = &["cookie", "consent", "gdpr", "onetrust", "popup", "modal"];

pub(super) const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "dialog",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "ul",
    "summary",
    "tr",
    "td",
    "th",
    "tbody",
    "thead",
];

/// Query parameters that carry credentials; their values never leave the page.
pub(super) const CREDENTIAL_PARAMS: &[&str] = &[
    "token",
    "access_token",
    "id_token",
    "refresh_token",
    "auth",
    "authorization",
    "auth_token",
    "sig",
    "signature",
    "password",
    "passwd",
    "pwd",
    "pass",
    "session",
    "sessionid",
    "session_id",
    "sid",
    "jsessionid",
    "phpsessid",
    "api_key",
    "apikey",
    "key",
    "secret",
    "client_secret",
    "code",
    "otp",
    "x-amz-signature",
    "x-amz-credential",
    "x-amz-security-token",
    "credential",
    "credentials",
    "csrf",
    "csrftoken",
    "csrf_token",
    "_csrf",
    "csrfmiddlewaretoken",
    "xsrf",
    "_xsrf",
    "xsrf_token",
    "xsrf-token",
    "authenticity_token",
    "private_token",
    "access_key",
];

/// Class words of an answer block (Q&A pages collapse answers behind "Show answer"): shown text.
pub(super) const ANSWER_WORDS: &[&str] = &["answer"];

/// First words of a button label that offers to show more ("View product details", "Read more").
pub(super) const DISCLOSE_FIRST_WORDS: &[&str] = &["view", "show", "read", "see", "expand", "more", "details"];

/// The `blockquote` classes the embedding code of social networks gives a quoted post (Twitter/X,
/// Instagram, TikTok, Bluesky, Reddit embed snippets).
pub(super) const EMBEDDED_POST_CLASSES: &[&str] =
    &["twitter-tweet", "instagram-media", "tiktok-embed", "bluesky-embed", "reddit-embed"];

/// Class words of the customer reviews under a product: chrome however much prose they hold
/// (WCXB +2.4 page points).
pub(super) const REVIEW_WORDS: &[&str] = &["reviews"];

/// The last word of a "More … stories" heading ("More blog stories", "More world headlines").
pub(super) const STORY_WORDS: &[&str] = &["stories", "news", "articles", "posts", "headlines", "videos"];

/// Class words that keep a metadata-named block in the text ("post-meta-content").
pub(super) const METADATA_EXCEPT_WORDS: &[&str] = &["content", "body", "text"];

/// Class words of a photo or illustration credit line.
pub(super) const CREDIT_WORDS: &[&str] = &["credit"];

/// Label, name or id words of a one-time-code field (the Policy Gate never lets the model type
/// into one).
pub(super) const ONE_TIME_CODE_WORDS: &[&str] =
    &["one-time", "otp", "2fa", "two-factor", "totp", "verification code", "security code sent", "authenticator"];

/// Label, name or id words of a payment-card field.
pub(super) const PAYMENT_CARD_WORDS: &[&str] = &[
    "card number",
    "cardnumber",
    "card-number",
    "card_number",
    "ccnum",
    "cc-num",
    "cvc",
    "cvv",
    "csc",
    "security code",
    "expiry",
    "expiration",
    "exp-date",
    "iban",
    "routing number",
    "account number",
];

/// Label, name or id words of an e-mail field.
pub(super) const EMAIL_WORDS: &[&str] = &["email", "e-mail"];

/// Label, name or id words of a search field.
pub(super) const SEARCH_WORDS: &[&str] = &["search"];

/// Words a comment count stands beside ("12 comments", "3 replies").
pub(super) const COMMENT_COUNT_WORDS: &[&str] = &["comments", "comment", "replies", "reply", "answers", "responses"];

/// Class or id tokens that name one comment (Hacker News's "athing comtr", forums' "post-reply").
pub(super) const COMMENT_TOKENS: &[&str] =
    &["comment", "reply", "answer", "comtr", "athing comtr", "review", "message", "post-reply"];

/// What follows "comment-" or "reply-" in the token of a part of a comment, not a comment
/// ("comment-body", "reply-link").
pub(super) const COMMENT_PART_WORDS: &[&str] = &[
    "body",
    "content",
    "text",
    "meta",
    "header",
    "footer",
    "author",
    "actions",
    "form",
    "count",
    "list",
    "link",
    "date",
    "time",
    "vote",
    "avatar",
    "reply-link",
    "toggle",
    "score",
    "children",
    "replies",
    "tree",
    "section",
    "area",
    "widget",
    "respond",
    "policy",
    "rules",
    "sort",
    "nav",
    "pagination",
    "field",
    "input",
    "button",
    "icon",
    "permalink",
];

/// Stems of a one-comment token ("comment-123", "post_reply").
pub(super) const COMMENT_STEMS: &[&str] = &["comment", "reply"];

/// Class words of a comment's author (Hacker News's "hnuser").
pub(super) const COMMENT_AUTHOR_WORDS: &[&str] = &["author", "user", "hnuser", "commenter", "byline"];

/// Class words of a comment's age.
pub(super) const COMMENT_AGE_WORDS: &[&str] = &["age", "time", "date", "timestamp"];

/// Class words of a comment's score.
pub(super) const COMMENT_SCORE_WORDS: &[&str] = &["score", "points", "votes", "karma"];

/// Class words of a comment's body (Hacker News's "commtext").
pub(super) const COMMENT_BODY_WORDS: &[&str] = &["body", "content", "commtext", "comment-text", "text", "message"];

/// Class words of a modal overlay.
pub(super) const MODAL_WORDS: &[&str] = &["modal", "overlay", "lightbox"];

/// Class words of a paywall (Piano's "piano-", metering's "meter-").
pub(super) const PAYWALL_WORDS: &[&str] =
    &["paywall", "piano-", "meter-", "subscriber-only", "premium-content", "regwall"];

/// Class words of a cookie-consent wall (OneTrust, Didomi, CMPs).
pub(super) const COOKIE_WALL_WORDS: &[&str] = &["cookie", "consent", "gdpr", "cmp-", "onetrust", "didomi"];

/// Class words of an age gate.
pub(super) const AGE_GATE_WORDS: &[&str] = &["age-gate", "agegate", "age-verification", "ageverify"];

/// Phrases of a paywall's message.
pub(super) const PAYWALL_PHRASES: &[&str] = &[
    "subscribe to continue reading",
    "subscribe to read",
    "to continue reading, subscribe",
    "this content is for subscribers",
    "become a subscriber to read",
    "subscribers only",
];

/// Phrases of a sign-in wall.
pub(super) const AUTH_GATE_PHRASES: &[&str] = &[
    "sign in to continue",
    "log in to continue",
    "please log in to",
    "please sign in to",
    "you must be logged in",
    "login required",
    "sign in to view",
];

/// Phrases of an age gate.
pub(super) const AGE_GATE_PHRASES: &[&str] = &[
    "are you 18",
    "are you over 18",
    "you must be 18",
    "you must be 21",
    "verify your age",
    "confirm your age",
    "enter your date of birth",
];

/// Phrases of a page blocked where the reader is.
pub(super) const GEO_BLOCK_PHRASES: &[&str] = &[
    "not available in your country",
    "not available in your region",
    "not available in your location",
    "unavailable in your region",
    "blocked in your country",
];

/// Phrases of a page that shows nothing without JavaScript.
pub(super) const SCRIPT_REQUIRED_PHRASES: &[&str] =
    &["you need to enable javascript", "please enable javascript", "javascript is required", "requires javascript"];

/// Phrases that ask the reader to sign in.
pub(super) const SIGN_IN_PHRASES: &[&str] = &["sign in", "log in", "login", "sign-in", "log-in"];

/// Metadata keys of the page's title, in Readability's order of preference (Dublin Core, Open
/// Graph, Weibo).
pub(super) const TITLE_META_KEYS: &[&str] =
    &["dc:title", "dcterm:title", "og:title", "weibo:article:title", "weibo:webpage:title"];

/// Metadata keys of the title when none of [`TITLE_META_KEYS`] is there.
pub(super) const TITLE_META_FALLBACK_KEYS: &[&str] = &["twitter:title", "parsely-title"];

/// Further metadata keys a page's other titles come from.
pub(super) const OTHER_TITLE_META_KEYS: &[&str] = &["dc:title", "dcterm:title", "weibo:article:title", "parsely-title"];

/// The schema.org types of an article, whose JSON-LD `headline` is the page's title.
pub(super) const JSON_LD_ARTICLE_TYPES: &[&str] = &[
    "Article",
    "NewsArticle",
    "BlogPosting",
    "Report",
    "ScholarlyArticle",
    "TechArticle",
    "AdvertiserContentArticle",
    "AnalysisNewsArticle",
    "BackgroundNewsArticle",
    "OpinionNewsArticle",
    "ReportageNewsArticle",
    "ReviewNewsArticle",
    "SatiricalArticle",
    "SocialMediaPosting",
    "LiveBlogPosting",
    "DiscussionForumPosting",
    "MedicalScholarlyArticle",
];
