//! Form fields that come back with what was typed and an error beside them when the server
//! sends a form back (see `forms::FormEcho`). Limits are set on one-line inputs too, so a
//! browser stops most mistakes before they are sent; not on text areas, where a browser would
//! cut a long paste without a word: the server says how long it is, and sends it all back.

use leptos::prelude::*;

use crate::forms::FormEcho;

/// A labelled text input (or, with `rows`, a text area).
#[component]
pub fn Field(
    echo: Option<FormEcho>,
    /// The form's name, to keep element ids unique when a page has several forms.
    form: &'static str,
    name: &'static str,
    label: &'static str,
    /// The value to show when the form was not sent back.
    #[prop(into, optional)]
    value: String,
    max: usize,
    #[prop(optional)] required: bool,
    /// Lines for a text area; 0 for a one-line input.
    #[prop(optional)]
    rows: u32,
    #[prop(optional)] hint: Option<&'static str>,
    /// Takes the focus when the page opens (unless a field sent back at fault takes it): the
    /// page is there to change this field.
    #[prop(optional)]
    focus: bool,
) -> impl IntoView {
    let value = FormEcho::value(&echo, name, &value);
    let error = FormEcho::error(&echo, name);
    let id = format!("{form}-{name}");
    let invalid = error.is_some();
    let described = invalid.then(|| format!("{id}-error"));
    let first = FormEcho::first_error(&echo, name) || (focus && echo.is_none());
    let input = if rows == 0 {
        view! {
            <input
                id=id.clone()
                name=name
                value=value
                maxlength=max.to_string()
                required=required
                autofocus=first
                aria-invalid=invalid.then_some("true")
                aria-describedby=described.clone()
            />
        }
        .into_any()
    } else {
        view! {
            <textarea
                id=id.clone()
                name=name
                rows=rows.to_string()
                required=required
                autofocus=first
                aria-invalid=invalid.then_some("true")
                aria-describedby=described.clone()
            >
                // Leptos writes a text area's children unescaped; escape them here, or typed
                // text could close the element.
                {html_escape::encode_text(&value).into_owned()}
            </textarea>
        }
        .into_any()
    };
    view! {
        <div class="field" class:invalid=invalid>
            <label for=id.clone()>{label}</label>
            {input}
            {hint.map(|hint| view! { <small class="hint">{hint}</small> })}
            {error.map(|error| view! {
                <p class="field-error" id=format!("{id}-error") role="alert" data-testid=format!("error-{name}")>
                    {error}
                </p>
            })}
        </div>
    }
}

/// A file input, with its error when the form comes back (a file is never sent back: the
/// learner chooses it again).
#[component]
pub fn FileField(
    echo: Option<FormEcho>,
    form: &'static str,
    label: &'static str,
    accept: &'static str,
    hint: &'static str,
    /// The form can be sent without a file.
    #[prop(optional)]
    optional: bool,
) -> impl IntoView {
    let error = FormEcho::error(&echo, "file");
    let invalid = error.is_some();
    let id = format!("{form}-file");
    view! {
        <div class="field" class:invalid=invalid>
            <label for=id.clone()>{label}</label>
            <input id=id type="file" name="file" required=!optional autofocus=FormEcho::first_error(&echo, "file") accept=accept aria-invalid=invalid.then_some("true") />
            <small class="hint">{hint}</small>
            {error.map(|e| view! { <p class="field-error" role="alert" data-testid="error-file">{e}</p> })}
        </div>
    }
}

/// An error about a whole form (not one field), when it was sent back.
#[component]
pub fn FormMessage(echo: Option<FormEcho>) -> impl IntoView {
    echo.and_then(|e| e.message)
        .map(|message| view! { <p class="form-error" role="alert" data-testid="form-error">{message}</p> })
}

/// A labelled whole-number input within `range`, with a hint below and, when the server sent
/// the form back with its code, the error beside it.
#[component]
pub fn NumberField(
    label: &'static str,
    name: &'static str,
    range: std::ops::RangeInclusive<u32>,
    /// The stored value, or what the learner typed when the form came back with an error.
    value: String,
    testid: &'static str,
    hint: &'static str,
    error: Option<String>,
) -> impl IntoView {
    let invalid = error.is_some();
    let described = invalid.then(|| format!("{name}-error"));
    view! {
        <label class:invalid=invalid>
            {label}
            <input
                name=name
                type="number"
                min=range.start().to_string()
                max=range.end().to_string()
                step="1"
                required
                value=value
                autofocus=invalid
                aria-invalid=invalid.then_some("true")
                aria-describedby=described
                data-testid=testid
            />
            <small>{format!("{hint} From {} to {}.", range.start(), range.end())}</small>
            {error.map(|e| view! { <small class="field-error" id=format!("{name}-error") role="alert">{e}</small> })}
        </label>
    }
}
