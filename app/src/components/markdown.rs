//! Agent text as safe Markdown, written by the server: pulldown-cmark's events become a small
//! tree that one writer turns into HTML in which every piece of text is escaped. Raw HTML in
//! the text is shown as text; links are kept only for http, https and mailto; images become
//! links. Math (`$…$`, `$$…$$`) is typeset by KaTeX in the browser, loaded the first time a
//! page has math, with the TeX source shown until then. The same writer serves the history
//! pages, the exports and the live view (whose frames carry its HTML): the client renders no
//! Markdown, which keeps pulldown-cmark (about 70 KiB gzip) out of it.

use leptos::prelude::*;
#[cfg(feature = "ssr")]
use pulldown_cmark::{Event, Options, Parser, Tag};

#[cfg(feature = "ssr")]
enum Node {
    /// A non-void element: `p`, `em`, `li`, …
    Element(&'static str, Vec<Node>),
    Link(String, Vec<Node>),
    Text(String),
    Code(String),
    CodeBlock(String),
    Math {
        tex: String,
        display: bool,
    },
    Break,
    Rule,
}

#[cfg(feature = "ssr")]
fn element(tag: &Tag) -> &'static str {
    match tag {
        Tag::Paragraph => "p",
        Tag::Heading { .. } => "h4",
        Tag::BlockQuote(_) => "blockquote",
        Tag::List(Some(_)) => "ol",
        Tag::List(None) => "ul",
        Tag::Item => "li",
        Tag::Emphasis => "em",
        Tag::Strong => "strong",
        Tag::Strikethrough => "del",
        // Tables, footnotes and the like: keep their text, drop their structure. (Code blocks,
        // links and images are opened elsewhere.)
        Tag::CodeBlock(_)
        | Tag::HtmlBlock
        | Tag::FootnoteDefinition(_)
        | Tag::DefinitionList
        | Tag::DefinitionListTitle
        | Tag::DefinitionListDefinition
        | Tag::Table(_)
        | Tag::TableHead
        | Tag::TableRow
        | Tag::TableCell
        | Tag::Superscript
        | Tag::Subscript
        | Tag::Link { .. }
        | Tag::Image { .. }
        | Tag::MetadataBlock(_) => "span",
    }
}

#[cfg(feature = "ssr")]
fn safe_href(url: &str) -> Option<String> {
    let lower = url.trim().to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://") || lower.starts_with("mailto:"))
        .then(|| url.trim().to_string())
}

#[cfg(feature = "ssr")]
/// An element being built: its kind (`None` for a code block), a link target, its children.
type Open = (Option<&'static str>, Option<String>, Vec<Node>);

#[cfg(feature = "ssr")]
/// The node an element becomes once closed (or cut off by the end of a streaming text).
fn close((kind, href, children): Open) -> Node {
    match kind {
        None => Node::CodeBlock(
            children
                .into_iter()
                .filter_map(|c| match c {
                    Node::Text(t) => Some(t),
                    Node::Element(..)
                    | Node::Link(..)
                    | Node::Code(_)
                    | Node::CodeBlock(_)
                    | Node::Math { .. }
                    | Node::Break
                    | Node::Rule => None,
                })
                .collect(),
        ),
        Some("a") => match href {
            Some(href) => Node::Link(href, children),
            None => Node::Element("span", children),
        },
        Some(kind) => Node::Element(kind, children),
    }
}

#[cfg(feature = "ssr")]
fn parse(text: &str) -> Vec<Node> {
    let options = Options::ENABLE_MATH | Options::ENABLE_STRIKETHROUGH;
    let mut stack: Vec<Open> = vec![(Some("root"), None, vec![])];
    let push = |stack: &mut Vec<Open>, node: Node| {
        if let Some(top) = stack.last_mut() {
            top.2.push(node);
        }
    };
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => stack.push((None, None, vec![])),
            Event::Start(Tag::Link { dest_url, .. }) | Event::Start(Tag::Image { dest_url, .. }) => {
                stack.push((Some("a"), safe_href(&dest_url), vec![]))
            }
            Event::Start(tag) => stack.push((Some(element(&tag)), None, vec![])),
            Event::End(_) => {
                if stack.len() > 1
                    && let Some(open) = stack.pop()
                {
                    push(&mut stack, close(open));
                }
            }
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => {
                push(&mut stack, Node::Text(t.into_string()))
            }
            Event::Code(c) => push(&mut stack, Node::Code(c.into_string())),
            Event::InlineMath(m) => push(&mut stack, Node::Math { tex: m.into_string(), display: false }),
            Event::DisplayMath(m) => push(&mut stack, Node::Math { tex: m.into_string(), display: true }),
            Event::SoftBreak => push(&mut stack, Node::Text(" ".into())),
            Event::HardBreak => push(&mut stack, Node::Break),
            Event::Rule => push(&mut stack, Node::Rule),
            Event::TaskListMarker(done) => {
                push(&mut stack, Node::Text(if done { "☑ " } else { "☐ " }.into()))
            }
            Event::FootnoteReference(r) => push(&mut stack, Node::Text(format!("[{r}]"))),
        }
    }
    // Unclosed elements (a reply still streaming) fold into their parents.
    while stack.len() > 1 {
        if let Some(open) = stack.pop() {
            push(&mut stack, close(open));
        }
    }
    stack.pop().map(|(_, _, children)| children).unwrap_or_default()
}

/// Writes `text` as Markdown into an HTML string, every text escaped; math is left as TeX in
/// `span.math` for KaTeX to typeset. For server pages and exports that hold thousands of
/// messages.
#[cfg(feature = "ssr")]
pub fn write_html(text: &str, out: &mut String) {
    out.push_str("<div class=\"md\">");
    write_inner(text, out);
    out.push_str("</div>");
}

/// The HTML of `text` as Markdown, without the wrapper: what the live page is sent to show
/// (`assistant_complete`'s `html`).
#[cfg(feature = "ssr")]
pub fn markdown_html(text: &str) -> String {
    let mut out = String::new();
    write_inner(text, &mut out);
    out
}

#[cfg(feature = "ssr")]
/// The HTML of `text` as Markdown, without the wrapper.
fn write_inner(text: &str, out: &mut String) {
    if is_plain(text) {
        // What the parser would make of it: one paragraph of text.
        out.push_str("<p>");
        escape(text.trim(), out);
        out.push_str("</p>");
    } else {
        for node in parse(text) {
            write_node(node, out);
        }
    }
}

#[cfg(feature = "ssr")]
/// One line of prose with nothing Markdown reads as markup: most messages, which need no
/// parser.
fn is_plain(text: &str) -> bool {
    // Four spaces in front make a code block.
    let indent = text.len() - text.trim_start().len();
    let text = text.trim();
    indent < 4
        && text.chars().next().is_some_and(char::is_alphabetic)
        && !text.contains(|c: char| "*_`[]<>&$#!|~\\\n\r".contains(c) || c == '\t')
}

#[cfg(feature = "ssr")]
fn write_node(node: Node, out: &mut String) {
    match node {
        Node::Element(tag, children) => {
            out.push('<');
            out.push_str(tag);
            out.push('>');
            for child in children {
                write_node(child, out);
            }
            out.push_str("</");
            out.push_str(tag);
            out.push('>');
        }
        Node::Link(href, children) => {
            out.push_str("<a href=\"");
            escape(&href, out);
            out.push_str("\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">");
            for child in children {
                write_node(child, out);
            }
            out.push_str("</a>");
        }
        Node::Text(text) => escape(&text, out),
        Node::Code(code) => {
            out.push_str("<code>");
            escape(&code, out);
            out.push_str("</code>");
        }
        Node::CodeBlock(code) => {
            out.push_str("<pre><code>");
            escape(&code, out);
            out.push_str("</code></pre>");
        }
        Node::Math { tex, display } => {
            out.push_str(if display { "<span class=\"math display\">" } else { "<span class=\"math\">" });
            escape(&tex, out);
            out.push_str("</span>");
        }
        Node::Break => out.push_str("<br>"),
        Node::Rule => out.push_str("<hr>"),
    }
}

/// Text and attribute values, escaped for HTML.
pub fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// HTML the server wrote with [`markdown_html`] (every piece of text escaped), shown as it is,
/// its math typeset once in the page. The live view's only way to show agent text: the page
/// renders no Markdown of its own, which keeps a Markdown parser out of the client.
#[component]
pub fn Rendered(#[prop(into)] html: Signal<String>) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        html.track();
        if let Some(element) = node.get() {
            typeset_within(&element);
        }
    });
    view! { <div class="md" node_ref=node inner_html=move || html.get()></div> }
}

/// Plain text (a point, a cue) as HTML with its math marked for [`TypesetMath`]: `$…$` and
/// `$$…$$` (as Warren and Anki's importer write it) become `span.math`, everything else is
/// escaped. A `$` opens math only before a non-space and closes it only after one, not before a
/// digit, so "$5 and $10" stays prose.
pub fn math_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        let display = rest[at..].starts_with("$$");
        let delimiter = if display { "$$" } else { "$" };
        let body_start = at + delimiter.len();
        let closing = rest[body_start..].find(delimiter).map(|end| body_start + end);
        let tex = closing.map(|end| &rest[body_start..end]);
        let after = closing.and_then(|end| rest[end + delimiter.len()..].chars().next());
        let is_math = tex.is_some_and(|tex| {
            !tex.is_empty()
                && !tex.starts_with(char::is_whitespace)
                && !tex.ends_with(char::is_whitespace)
                && !tex.contains('\n')
        }) && !after.is_some_and(|c| c.is_ascii_digit());
        match (is_math, tex, closing) {
            (true, Some(tex), Some(end)) => {
                escape(&rest[..at], &mut out);
                out.push_str(if display { "<span class=\"math display\">" } else { "<span class=\"math\">" });
                escape(tex, &mut out);
                out.push_str("</span>");
                rest = &rest[end + delimiter.len()..];
            }
            _ => {
                escape(&rest[..body_start], &mut out);
                rest = &rest[body_start..];
            }
        }
    }
    escape(rest, &mut out);
    out
}

/// Plain text as HTML for [`Rendered`]: escaped, its lines kept (a reply still streaming,
/// before the server's rendering of it arrives).
pub fn plain_html(text: &str) -> String {
    let mut out = String::from("<p>");
    for (i, line) in text.trim().lines().enumerate() {
        if i > 0 {
            out.push_str("<br>");
        }
        escape(line, &mut out);
    }
    out.push_str("</p>");
    out
}

/// Typesets every `span.math` inside `element`.
#[cfg(feature = "hydrate")]
fn typeset_within(element: &web_sys::Element) {
    use wasm_bindgen::JsCast;
    let Ok(spans) = element.query_selector_all("span.math") else { return };
    for i in 0..spans.length() {
        let Some(span) = spans.item(i).and_then(|n| n.dyn_into::<web_sys::HtmlSpanElement>().ok()) else {
            continue;
        };
        let display = span.class_list().contains("display");
        let tex = span.text_content().unwrap_or_default();
        katex::typeset(span, tex, display);
    }
}

/// Typesets every `span.math` inside the element with id `within`, once the page is live:
/// one island for a page of server-written Markdown.
#[island]
pub fn TypesetMath(within: String) -> impl IntoView {
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        if let Some(element) =
            web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(&within))
        {
            typeset_within(&element);
        }
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = within;
}

#[cfg(feature = "hydrate")]
mod katex {
    //! KaTeX from `/katex/` (copied from npm at build time), loaded once, on first use.

    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;

    const SCRIPT_ID: &str = "katex-script";

    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_namespace = katex, js_name = render, catch)]
        fn render(tex: &str, element: &web_sys::HtmlElement, options: &JsValue) -> Result<(), JsValue>;
    }

    fn options(display: bool) -> JsValue {
        let options = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&options, &"displayMode".into(), &display.into());
        let _ = js_sys::Reflect::set(&options, &"throwOnError".into(), &false.into());
        // No \href, \url or HTML extensions from text we did not write.
        let _ = js_sys::Reflect::set(&options, &"trust".into(), &false.into());
        options.into()
    }

    fn loaded() -> bool {
        web_sys::window()
            .and_then(|w| js_sys::Reflect::get(&w, &"katex".into()).ok())
            .is_some_and(|k| !k.is_undefined())
    }

    pub fn typeset(element: web_sys::HtmlSpanElement, tex: String, display: bool) {
        if loaded() {
            let _ = render(&tex, &element, &options(display));
            return;
        }
        let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
        let script = match document.get_element_by_id(SCRIPT_ID) {
            Some(existing) => existing,
            None => {
                let Some(head) = document.head() else { return };
                if let Ok(link) = document.create_element("link") {
                    let _ = link.set_attribute("rel", "stylesheet");
                    let _ = link.set_attribute("href", "/katex/katex.min.css");
                    let _ = head.append_child(&link);
                }
                let Ok(script) = document.create_element("script") else { return };
                let _ = script.set_attribute("id", SCRIPT_ID);
                let _ = script.set_attribute("src", "/katex/katex.min.js");
                let _ = head.append_child(&script);
                script
            }
        };
        let on_load = Closure::once_into_js(move || {
            let _ = render(&tex, &element, &options(display));
        });
        let _ = script.add_event_listener_with_callback("load", on_load.unchecked_ref());
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    fn shape(nodes: &[Node]) -> String {
        nodes
            .iter()
            .map(|n| match n {
                Node::Element(t, c) => format!("<{t}>{}</{t}>", shape(c)),
                Node::Link(h, c) => format!("<a {h}>{}</a>", shape(c)),
                Node::Text(t) => t.clone(),
                Node::Code(c) => format!("`{c}`"),
                Node::CodeBlock(c) => format!("```{c}```"),
                Node::Math { tex, display } => {
                    format!("{}{tex}{}", if *display { "$$" } else { "$" }, if *display { "$$" } else { "$" })
                }
                Node::Break => "<br>".into(),
                Node::Rule => "<hr>".into(),
            })
            .collect()
    }

    #[test]
    fn math_in_plain_text_is_marked_and_prices_are_not() {
        assert_eq!(math_html(r"Area: $A = \pi r^2$."), r#"Area: <span class="math">A = \pi r^2</span>."#);
        assert_eq!(math_html("$$E = mc^2$$"), r#"<span class="math display">E = mc^2</span>"#);
        assert_eq!(math_html("It costs $5 and $10 <b>"), "It costs $5 and $10 &lt;b&gt;");
        assert_eq!(math_html("a $ b $ c"), "a $ b $ c");
        assert_eq!(math_html("no math"), "no math");
    }

    #[test]
    fn markdown_with_code_and_math() {
        assert_eq!(
            shape(&parse("Is it *O(n)* or `O(log n)`? Think $n \\log n$.")),
            "<p>Is it <em>O(n)</em> or `O(log n)`? Think $n \\log n$.</p>"
        );
        assert_eq!(shape(&parse("$$E = mc^2$$")), "<p>$$E = mc^2$$</p>");
    }

    #[test]
    fn html_stays_text_and_bad_links_lose_their_target() {
        // An HTML block stays text: the page shows the characters, the browser never parses them.
        assert_eq!(shape(&parse("<script>alert(1)</script>")), "<span><script>alert(1)</script></span>");
        let inline = parse("<b>x</b>");
        assert!(
            matches!(&inline[0], Node::Element("p", kids) if kids.iter().all(|k| matches!(k, Node::Text(_))))
        );
        assert_eq!(shape(&parse("[x](javascript:alert(1))")), "<p><span>x</span></p>");
        assert_eq!(shape(&parse("[x](https://example.org)")), "<p><a https://example.org>x</a></p>");
        assert_eq!(shape(&parse("![cat](https://e.org/c.png)")), "<p><a https://e.org/c.png>cat</a></p>");
    }

    #[test]
    fn html_strings_escape_everything_they_were_not_written_to_hold() {
        let mut out = String::new();
        write_html("<b>\"x\"</b> & *y* [l](https://e.org/?a=1&b=\"2\") $a<b$", &mut out);
        assert_eq!(
            out,
            "<div class=\"md\"><p>&lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; <em>y</em> <a href=\"https://e.org/?a=1&amp;b=&quot;2&quot;\" \
             rel=\"noopener noreferrer nofollow\" target=\"_blank\">l</a> <span class=\"math\">a&lt;b</span></p></div>"
        );
    }

    #[test]
    fn plain_prose_skips_the_parser_and_comes_out_the_same() {
        let slow = |text: &str| {
            let mut out = String::from("<div class=\"md\">");
            parse(text).into_iter().for_each(|n| write_node(n, &mut out));
            out + "</div>"
        };
        for text in [
            "Which part of the cell supplies most of its energy, and in what form?",
            "  Romulus, I think. \"He\" founded it (753 BC) — didn't he? ",
            "It's 3.14 or so; maybe 22/7.",
        ] {
            assert!(is_plain(text), "{text}");
            let mut fast = String::new();
            write_html(text, &mut fast);
            assert_eq!(fast, slow(text));
        }
        for text in ["- a list", "1. first", "*em*", "a\nb", "x $y$", "# title", "a <b>", "    code"] {
            assert!(!is_plain(text), "{text}");
        }
    }

    #[test]
    fn a_half_streamed_reply_still_renders() {
        assert_eq!(shape(&parse("Think **about")), "<p>Think **about</p>");
        assert_eq!(shape(&parse("```\nlet x")), "```let x```");
    }
}
