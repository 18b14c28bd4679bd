//! Sign-in and sign-up: plain HTML forms posting to `/auth/*`, so they work before the client
//! has loaded. The server sends failures back here with an error code to word.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::forms::{PasswordProblem, limits, username_chars, username_rule};

fn message(code: &str) -> String {
    if let Ok(problem) = code.parse::<PasswordProblem>() {
        return problem.message();
    }
    match code {
        "invalid" => "Wrong username or password.".into(),
        "throttled" => "Too many attempts. Wait a minute, then try again.".into(),
        "username" => username_rule(),
        "taken" => "That username is taken. Choose another, or sign in.".into(),
        _ => "Something went wrong on our side. Try again.".into(),
    }
}

/// Refusals of the password itself, shown under its field.
fn is_about_password(code: &str) -> bool {
    code.parse::<PasswordProblem>().is_ok()
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
                        minlength=limits::USERNAME_MIN.to_string()
                        maxlength=limits::USERNAME.to_string()
                        value=username
                        autocapitalize="none"
                        spellcheck="false"
                    />
                    {(mode == Mode::SignUp).then(|| view! {
                        <small>{username_chars()}</small>
                    })}
                </label>
                <label>
                    "Password"
                    <input
                        name="password"
                        type="password"
                        autocomplete=autocomplete
                        required
                        minlength=if mode == Mode::SignUp { limits::PASSWORD_MIN } else { 1 }.to_string()
                        maxlength=limits::PASSWORD.to_string()
                    />
                    {(mode == Mode::SignUp).then(|| {
                        view! { <small>{format!("At least {} characters.", limits::PASSWORD_MIN)}</small> }
                    })}
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
