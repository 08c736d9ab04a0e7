//! The web board in a real browser: headless Chromium driven over WebDriver
//! (chromedriver, Debian's `chromium` and `chromium-driver`). Loads the
//! page, plays moves by clicking points and by typing, checks the values
//! shown against the JSON API, undoes and redoes, checks the layout on a
//! phone-sized window, and saves screenshots
//! (`target/browser-board.png`, `target/browser-phone.png`).
//!
//! Without chromedriver on the PATH the test says so and passes, unless
//! `MORRIS_BROWSER_TEST=require` (set by `.ci/run`, which installs both).

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use morris_db::RuleSet;
use morris_server::{Catalog, Config, DirArg};
use serde_json::{json, Value as Json};

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).flat_map(|d| names.iter().map(move |n| d.join(n))).find(|p| p.is_file())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

async fn api_get(addr: SocketAddr, path: &str) -> Json {
    let url = format!("http://{addr}{path}");
    tokio::task::spawn_blocking(move || {
        let mut resp = ureq::get(&url).call().unwrap();
        serde_json::from_str(&resp.body_mut().read_to_string().unwrap()).unwrap()
    })
    .await
    .unwrap()
}

/// Waits until the page has loaded the position `position` (our notation).
async fn wait_for_position(c: &Client, position: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let shown = c.execute("return document.getElementById('postext').value", vec![]).await.unwrap();
        let ready = c.execute("return document.body.dataset.ready || ''", vec![]).await.unwrap();
        if shown == position && ready != "" {
            return;
        }
        assert!(Instant::now() < deadline, "the page shows {shown}, not {position}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The value and the move list the page shows, as (notation, category,
/// dtm) strings.
async fn shown(c: &Client) -> (String, String, Vec<(String, String, String)>) {
    let v = c
        .execute(
            "const v = document.getElementById('value'); \
             const moves = [...document.querySelectorAll('#moves li button')].map(b => [b.dataset.notation, b.dataset.category, b.dataset.dtm]); \
             return [v.dataset.category || '', v.dataset.dtm || '', moves];",
            vec![],
        )
        .await
        .unwrap();
    let moves = v[2]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m[0].as_str().unwrap().into(), m[1].as_str().unwrap().into(), m[2].as_str().unwrap().into()))
        .collect();
    (v[0].as_str().unwrap().into(), v[1].as_str().unwrap().into(), moves)
}

/// Checks what the page shows against the API's answer for `position`.
async fn check_against_api(c: &Client, addr: SocketAddr, rules: &str, position: &str) -> Json {
    wait_for_position(c, position).await;
    let api = api_get(addr, &format!("/api/{rules}?position={}", position.replace(' ', "_"))).await;
    let (category, dtm, moves) = shown(c).await;
    let s = |v: &Json| if v.is_null() { String::new() } else { v.to_string() };
    assert_eq!(category, api["category"].as_str().unwrap(), "{position}");
    assert_eq!(dtm, s(&api["dtm"]), "{position}");
    let expected: Vec<(String, String, String)> = api["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["notation"].as_str().unwrap().into(), m["category"].as_str().unwrap().into(), s(&m["dtm"])))
        .collect();
    assert_eq!(moves, expected, "{position}");
    api
}

async fn click_point(c: &Client, point: &str) {
    c.find(Locator::Css(&format!("[data-point='{point}']"))).await.unwrap().click().await.unwrap();
}

/// Plays `mv`, one of `moves` (an API answer's), by clicking: the stone to
/// move (if any), the target, then the stone to remove when several moves
/// share that stone and target (the page asks only then).
async fn click_move(c: &Client, moves: &Json, mv: &Json) {
    if let Some(from) = mv["from"].as_str() {
        click_point(c, from).await;
    }
    click_point(c, mv["to"].as_str().unwrap()).await;
    let same = moves.as_array().unwrap().iter().filter(|m| m["from"] == mv["from"] && m["to"] == mv["to"]).count();
    if same > 1 {
        click_point(c, mv["removes"][0].as_str().unwrap()).await;
    }
}

async fn save_screenshot(c: &Client, name: &str) -> PathBuf {
    let png = c.screenshot().await.unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, png).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_plays_and_shows_the_api_values() {
    let require = std::env::var("MORRIS_BROWSER_TEST").is_ok_and(|v| v == "require");
    let (Some(driver), Some(chromium)) =
        (find_program(&["chromedriver"]), find_program(&["chromium", "chromium-browser", "google-chrome"]))
    else {
        assert!(!require, "MORRIS_BROWSER_TEST=require, but chromedriver or chromium is not on the PATH");
        eprintln!("skipped: chromedriver and chromium are not installed (apt-get install chromium chromium-driver)");
        return;
    };

    // Small databases: nine's 3-3 sector, six completely.
    let tmp = tempfile::tempdir().unwrap();
    let (nine, six) = (tmp.path().join("nine"), tmp.path().join("six"));
    let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
    morris_solver::solve_sliding(&RuleSet::preset("nine").unwrap(), &nine, &options).unwrap();
    morris_solver::solve_all(&RuleSet::preset("six").unwrap(), &six, false).unwrap();
    let config = Config {
        dbs: vec![
            DirArg { rules: Some("nine".into()), dir: nine.clone() },
            DirArg { rules: Some("six".into()), dir: six.clone() },
        ],
        ..Config::default()
    };
    let running =
        morris_server::start(Catalog::open(&config).unwrap(), SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
    let addr = running.addr;

    let port = free_port();
    let _driver = Driver(
        Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts"),
    );
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,1000"],
        }),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let c = loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
        {
            Ok(c) => break c,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("cannot reach chromedriver: {e}"),
        }
    };

    // Nine, 3-3: a won position (Win(15), hand-checked in morris-probe's docs).
    let start = "W:a4,d1,g4 B:b2,d6,f2 w";
    c.goto(&format!("http://{addr}/?rules=nine&position={}", start.replace(' ', "_"))).await.unwrap();
    let api0 = check_against_api(&c, addr, "nine", start).await;
    assert_eq!((api0["category"].as_str(), api0["dtm"].as_u64()), (Some("win"), Some(15)));
    // The board marks White's stones with the best value of their moves.
    let best = &api0["moves"][0];
    let marker = c
        .execute(
            "const m = document.querySelector(`[data-marker='${arguments[0]}']`); return m ? m.dataset.category : null;",
            vec![best["from"].clone()],
        )
        .await
        .unwrap();
    assert_eq!(marker, "win");
    // Play the best move, then Black's best reply, by clicking.
    click_move(&c, &api0["moves"], best).await;
    let api1 = check_against_api(&c, addr, "nine", best["position"].as_str().unwrap()).await;
    assert_eq!((api1["category"].as_str(), api1["dtm"].as_u64()), (Some("loss"), Some(14)));
    let reply = api1["moves"][0].clone();
    click_move(&c, &api1["moves"], &reply).await;
    let api2 = check_against_api(&c, addr, "nine", reply["position"].as_str().unwrap()).await;
    assert_eq!(api2["dtm"], 13);
    // The URL holds the position.
    let url = c.current_url().await.unwrap();
    assert!(url.as_str().contains("position="), "{url}");
    // Undo twice, redo once.
    c.find(Locator::Id("undo")).await.unwrap().click().await.unwrap();
    wait_for_position(&c, best["position"].as_str().unwrap()).await;
    c.find(Locator::Id("undo")).await.unwrap().click().await.unwrap();
    wait_for_position(&c, start).await;
    c.find(Locator::Id("redo")).await.unwrap().click().await.unwrap();
    check_against_api(&c, addr, "nine", best["position"].as_str().unwrap()).await;
    // A move by keyboard: the worst reply, typed.
    let moves = api1["moves"].as_array().unwrap();
    let worst = moves.last().unwrap();
    let typed = c.find(Locator::Id("typed")).await.unwrap();
    typed.send_keys(&format!("{}\n", worst["notation"].as_str().unwrap())).await.unwrap();
    check_against_api(&c, addr, "nine", worst["position"].as_str().unwrap()).await;

    // Six from the start: placements by clicking, each checked.
    c.goto(&format!("http://{addr}/?rules=six")).await.unwrap();
    let mut pos = "W: B: w 6 6".to_string();
    for _ in 0..4 {
        let api = check_against_api(&c, addr, "six", &pos).await;
        let mv = api["moves"][0].clone();
        click_move(&c, &api["moves"], &mv).await;
        pos = mv["position"].as_str().unwrap().to_string();
    }
    let api = check_against_api(&c, addr, "six", &pos).await;
    assert_eq!(api["phase"], "placement");
    let six_png = save_screenshot(&c, "browser-six.png").await;

    // Back to nine, a White stone picked up: every flight it has, coloured.
    c.goto(&format!("http://{addr}/?rules=nine&position={}", start.replace(' ', "_"))).await.unwrap();
    wait_for_position(&c, start).await;
    click_point(&c, best["from"].as_str().unwrap()).await;
    let targets = c.execute("return document.querySelectorAll('[data-marker]').length", vec![]).await.unwrap();
    let from_best = api0["moves"].as_array().unwrap().iter().filter(|m| m["from"] == best["from"]).count();
    let distinct_targets = {
        let mut t: Vec<&str> = api0["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["from"] == best["from"])
            .map(|m| m["to"].as_str().unwrap())
            .collect();
        t.sort_unstable();
        t.dedup();
        t.len()
    };
    assert!(from_best > 0);
    assert_eq!(targets, distinct_targets as u64, "one marker per target of the stone picked up");
    let board_png = save_screenshot(&c, "browser-board.png").await;

    // Against perfect play: you take Black on six's start, the page plays
    // White's best move at once (the API's first).
    c.goto(&format!("http://{addr}/?rules=six&mode=black")).await.unwrap();
    let api = api_get(addr, "/api/six?position=W:_B:_w_6_6").await;
    wait_for_position(&c, api["moves"][0]["position"].as_str().unwrap()).await;

    // A phone-sized window: nothing wider than the screen.
    c.set_window_size(390, 844).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fits = c.execute("return document.documentElement.scrollWidth <= window.innerWidth + 1", vec![]).await.unwrap();
    assert_eq!(fits, true, "the page is wider than a phone's screen");
    let phone_png = save_screenshot(&c, "browser-phone.png").await;
    eprintln!("screenshots: {} {} {}", board_png.display(), six_png.display(), phone_png.display());

    c.close().await.unwrap();
    running.stop().await.unwrap();
}
