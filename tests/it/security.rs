//! Every kind of response carries the browser-hardening headers: a page, a server function,
//! a static file, an uploaded image (with its own stricter policy), a refused socket upgrade,
//! an error page and a form post's redirect.

use reqwest::Response;

use crate::common::TestApp;

/// The headers every response must carry; `Err` names what is missing.
fn hardened(what: &str, res: &Response) -> Result<(), String> {
    let header = |name: &str| res.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let policy = header("content-security-policy");
    let directive = |name: &str| {
        policy.split(';').map(str::trim).find(|d| d.split(' ').next() == Some(name)).unwrap_or("")
    };
    let mut missing = Vec::new();
    if directive("frame-ancestors") != "frame-ancestors 'none'" {
        missing.push("frame-ancestors 'none'".to_string());
    }
    if directive("object-src") != "object-src 'none'" && directive("default-src") != "default-src 'none'" {
        missing.push("object-src 'none'".into());
    }
    let scripts =
        if directive("script-src").is_empty() { directive("default-src") } else { directive("script-src") };
    if scripts.is_empty() || scripts.contains("'unsafe-inline'") {
        missing.push("script-src without unsafe-inline".into());
    }
    if header("x-content-type-options") != "nosniff" {
        missing.push("nosniff".into());
    }
    if header("referrer-policy") != "same-origin" {
        missing.push("referrer-policy".into());
    }
    if !header("permissions-policy").contains("camera=()")
        || !header("permissions-policy").contains("microphone=(self)")
    {
        missing.push("permissions-policy".into());
    }
    if header("cross-origin-opener-policy") != "same-origin" {
        missing.push("cross-origin-opener-policy".into());
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("{what} ({}) lacks {missing:?}: {policy}", res.status()))
    }
}

#[tokio::test]
async fn every_kind_of_response_carries_the_security_headers() {
    let site = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(site.path().join("pkg")).unwrap();
    std::fs::write(site.path().join("pkg/probe.css"), "body {}").unwrap();
    let root = site.path().to_path_buf();
    let app = TestApp::spawn_with(|c| c.site_root = root).await;
    let cookie = app.learner.cookie.clone();
    let get = |path: &str, signed_in: bool| {
        let mut request = app.http.get(app.url(path));
        if signed_in {
            request = request.header("cookie", &cookie);
        }
        request.send()
    };
    let mut failures = Vec::new();
    let mut check = |what: &str, res: Response| {
        if let Err(e) = hardened(what, &res) {
            failures.push(e);
        }
        res
    };

    let page = check("a page", get("/", true).await.unwrap());
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    check("the sign-in page", get("/signin", false).await.unwrap());
    let function =
        app.http.post(app.url("/api/get_dashboard")).header("cookie", &cookie).send().await.unwrap();
    assert_eq!(check("a server function", function).status(), 200);
    assert_eq!(check("a static file", get("/pkg/probe.css", false).await.unwrap()).status(), 200);
    assert_eq!(check("an error page", get("/nowhere", true).await.unwrap()).status(), 404);
    let refused = check("a refused socket upgrade", get("/ws/sessions/nope", false).await.unwrap());
    assert!(refused.status().is_client_error(), "{}", refused.status());
    let redirect = app
        .http
        .post(app.url("/auth/signin"))
        .form(&[("username", "x"), ("password", "y")])
        .send()
        .await
        .unwrap();
    assert_eq!(check("a form post's redirect", redirect).status(), 303);

    // An uploaded image keeps its own policy, which forbids everything, and is never sniffed.
    let sets = app.store().list_sets(app.owner(), i64::MAX).await.unwrap();
    let form = reqwest::multipart::Form::new()
        .text("title", "Diagram")
        .part("file", reqwest::multipart::Part::bytes(crate::authoring::PNG.to_vec()).file_name("d.png"));
    assert_eq!(app.upload(&sets[0].id, form).await.status(), 303);
    let resources = app.store().resources(app.owner(), &sets[0].id).await.unwrap();
    let media = resources.iter().find_map(|r| r.url.clone().filter(|u| u.starts_with("/media/"))).unwrap();
    let image = check("an image", get(&media, true).await.unwrap());
    assert_eq!(image.status(), 200);
    assert_eq!(image.headers()["content-type"], "image/png");
    assert!(image.headers()["content-security-policy"].to_str().unwrap().contains("sandbox"));

    assert!(failures.is_empty(), "{failures:#?}");

    // The page's inline scripts carry the nonce its policy names, and a new response has a
    // new one.
    let policy =
        |html_res: &Response| html_res.headers()["content-security-policy"].to_str().unwrap().to_string();
    let again = get("/", true).await.unwrap();
    let second = policy(&again);
    let nonce = second.split("'nonce-").nth(1).and_then(|rest| rest.split('\'').next()).unwrap().to_string();
    let body = again.text().await.unwrap();
    let scripts = body.matches("<script").count();
    assert!(scripts >= 2, "{body}");
    assert_eq!(
        body.matches(&format!("nonce=\"{nonce}\"")).count(),
        scripts,
        "every inline script has the nonce: {body}"
    );
    assert!(!html.contains(&format!("nonce=\"{nonce}\"")), "nonces are not reused");
}

#[tokio::test]
async fn https_deployments_ask_for_https_only() {
    let app = TestApp::spawn_with(|c| c.public_url = Some("https://warren.example.org".into())).await;
    let res = app.http.get(app.url("/signin")).send().await.unwrap();
    assert_eq!(res.headers()["strict-transport-security"], "max-age=31536000");
    let plain = TestApp::spawn().await;
    let res = plain.http.get(plain.url("/signin")).send().await.unwrap();
    assert!(res.headers().get("strict-transport-security").is_none());
}

#[tokio::test]
async fn pages_json_and_files_travel_compressed_as_the_browser_accepts_and_are_asked_for_again() {
    let site = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(site.path().join("pkg")).unwrap();
    let css = "body { color: black; }\n".repeat(200);
    std::fs::write(site.path().join("pkg/probe.css"), &css).unwrap();
    let root = site.path().to_path_buf();
    let app = TestApp::spawn_with(|c| c.site_root = root).await;
    let cookie = app.learner.cookie.clone();
    let get = |path: &str, encoding: &str| {
        app.http.get(app.url(path)).header("cookie", &cookie).header("accept-encoding", encoding).send()
    };
    for (path, encoding) in [("/", "br"), ("/sets", "zstd"), ("/history", "gzip"), ("/pkg/probe.css", "br")] {
        let plain = get(path, "identity").await.unwrap();
        assert_eq!(plain.status(), 200, "{path}");
        assert!(plain.headers().get("content-encoding").is_none(), "{path}");
        let raw = plain.bytes().await.unwrap().len();
        let packed = get(path, &format!("{encoding}, gzip;q=0.5")).await.unwrap();
        assert_eq!(packed.headers()["content-encoding"], encoding, "{path}");
        let kept = if path.starts_with("/pkg/") { "no-cache" } else { "no-store" };
        assert_eq!(packed.headers()["cache-control"], kept, "{path}: asked for again");
        let sent = packed.bytes().await.unwrap().len();
        assert!(sent * 2 < raw, "{path}: {sent} bytes sent for {raw}");
    }
    let function = app
        .http
        .post(app.url("/api/get_dashboard"))
        .header("cookie", &cookie)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(function.status(), 200);
    assert_eq!(function.headers()["content-encoding"], "gzip", "a server function's JSON");
}

#[tokio::test]
async fn the_client_files_go_by_their_content_hash_and_are_kept_for_good() {
    let site = tempfile::tempdir().unwrap();
    let pkg = site.path().join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    let name = "warren.0123456789abcdef";
    std::fs::write(pkg.join("bundle.json"), format!(r#"{{"name":"{name}"}}"#)).unwrap();
    for (file, body) in [(".js", "export default 1;"), ("_bg.wasm", "\0asm"), (".css", "body {}")] {
        std::fs::write(pkg.join(format!("{name}{file}")), body).unwrap();
    }
    let root = site.path().to_path_buf();
    let app = TestApp::spawn_with(|c| c.site_root = root).await;
    let get = |path: String| app.http.get(app.url(&path)).header("cookie", &app.learner.cookie).send();

    let page = get("/".into()).await.unwrap();
    // Not kept, so Back asks again rather than showing the page as it was.
    assert_eq!(page.headers()["cache-control"], "no-store", "pages are asked for again");
    let html = page.text().await.unwrap();
    for file in [".js", "_bg.wasm", ".css"] {
        let path = format!("/pkg/{name}{file}");
        assert!(html.contains(&path), "the page names {path}: {html}");
        let res = get(path.clone()).await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.headers()["cache-control"], "public, max-age=31536000, immutable", "{path}");
    }
    // A name no build made is not found, and that answer is not kept.
    let missing = get("/pkg/warren.fedcba9876543210.js".into()).await.unwrap();
    assert_eq!(missing.status(), 404);
    assert_eq!(missing.headers()["cache-control"], "no-store");
}

#[tokio::test]
async fn metrics_are_for_the_operators_monitoring_only() {
    // With a token: nobody without it, nor with another.
    let app = TestApp::spawn().await;
    let res = app.http.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(res.status(), 401);
    assert_eq!(res.headers()["www-authenticate"], "Bearer");
    let res = app.http.get(app.url("/metrics")).bearer_auth("a guess").send().await.unwrap();
    assert_eq!(res.status(), 401);
    let res = app.http.get(app.url("/metrics")).header("cookie", &app.learner.cookie).send().await.unwrap();
    assert_eq!(res.status(), 401, "a learner's sign-in is no token");
    assert!(app.metrics().await.contains("warren_learner_messages_total"));

    // Without one, not on the learners' address at all; on an address of its own, open.
    let dir = tempfile::tempdir().unwrap();
    let database = crate::common::fresh_database(&dir).await;
    let mut config = warren::config::Config::for_database(&database);
    config.metrics_addr = Some(std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
    let server = warren::startup::Application::build(&config).await.unwrap();
    let (addr, metrics) = (server.local_addr(), server.metrics_addr().expect("its own address"));
    tokio::spawn(server.run());
    let http = reqwest::Client::new();
    let res = http.get(format!("http://{addr}/metrics")).send().await.unwrap();
    assert_eq!(res.status(), 404);
    let res = http.get(format!("http://{metrics}/metrics")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().contains("warren_learner_messages_total"));
    let res = http.get(format!("http://{metrics}/")).send().await.unwrap();
    assert_eq!(res.status(), 404, "the metrics address serves nothing else");
}
