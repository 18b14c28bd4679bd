//! Sign-in and sign-up: plain HTML forms posting to `/auth/*`, so they work before the client
//! has loaded. The server sends failures back here with an error code to word.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

fn message(code: &str) -> &'static str {
    match code {
        "invalid" => "Wrong username or password.",
        "throttled" => "Too many attempts. Wait a minute, then try again.",
        "username" => "Usernames have 3 to 32 characters: letters, digits, dots, dashes or underscores.",
        "short" => "Passwords need at least 10 characters.",
        "long" => "Passwords can have at most 200 characters.",
        "common" => {
            "That password is among the first anyone would guess. Choose another: a few unrelated words work well."
        }
        "like-username" => "That password is mostly your username. Choose another.",
        "taken" => "That username is taken. Choose another, or sign in.",
        _ => "Something went wrong on our side. Try again.",
    }
}

/// Refusals of the password itself, shown under its field.
fn is_about_password(code: &str) -> bool {
    matches!(code, "short" | "long" | "common" | "like-username")
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    SignIn,
    SignUp,
}

#[component]
pub fn SignIn() -> impl IntoView {
    view! { <AuthForm mode=Mode::SignIn /> }
}

#[component]
pub fn SignUp() -> impl IntoView {
    view! { <AuthForm mode=Mode::SignUp /> }
}

#[component]
fn AuthForm(mode: Mode) -> impl IntoView {
    let query = use_query_map();
    let error = move || query.with(|q| q.get("error"));
    let username = move || query.with(|q| q.get("username")).unwrap_or_default();
    let next = move || query.with(|q| q.get("next")).unwrap_or_else(|| "/".into());
    let deleted = query.with_untracked(|q| q.get("done").is_some_and(|d| d == "deleted"));
    let (title, action, submit, autocomplete) = match mode {
        Mode::SignIn => ("Sign in", "/auth/signin", "Sign in", "current-password"),
        Mode::SignUp => ("Create your account", "/auth/signup", "Create account", "new-password"),
    };
    view! {
        <Title text=title />
        <section class="auth page">
            <h1>{title}</h1>
            {match mode {
                Mode::SignUp => view! {
                    <p class="lede">
                        "Warren asks, you remember. Your account starts with three demo recall sets."
                    </p>
                }.into_any(),
                Mode::SignIn => view! { <p class="lede">"Welcome back."</p> }.into_any(),
            }}
            {deleted.then(|| view! {
                <p class="form-notice" role="status" data-testid="auth-notice">
                    "Your account and everything in it are deleted."
                </p>
            })}
            // A password refused for what it is is worded next to the password field.
            {move || error().filter(|code| !is_about_password(code)).map(|code| view! {
                <p class="form-error" role="alert" data-testid="auth-error">{message(&code)}</p>
            })}
            <form method="post" action=action class="stack">
                <input type="hidden" name="next" value=next />
                <label>
                    "Username"
                    <input
                        name="username"
                        autocomplete="username"
                        required
                        minlength="3"
                        maxlength="32"
                        value=username
                        autocapitalize="none"
                        spellcheck="false"
                    />
                </label>
                <label>
                    "Password"
                    <input
                        name="password"
                        type="password"
                        autocomplete=autocomplete
                        required
                        minlength=if mode == Mode::SignUp { "10" } else { "1" }
                        maxlength="200"
                    />
                    {(mode == Mode::SignUp).then(|| view! { <small>"At least 10 characters."</small> })}
                    {move || error().filter(|code| is_about_password(code)).map(|code| view! {
                        <small class="field-error" role="alert" data-testid="auth-error">{message(&code)}</small>
                    })}
                </label>
                <button type="submit" class="button primary">{submit}</button>
            </form>
            {match mode {
                Mode::SignIn => view! {
                    <p>"New here? " <a href="/signup">"Create an account"</a></p>
                }.into_any(),
                Mode::SignUp => view! {
                    <p>"Already have an account? " <a href="/signin">"Sign in"</a></p>
                }.into_any(),
            }}
        </section>
    }
}
