//! The web board in a real browser: headless Chromium driven over WebDriver
//! (chromedriver, Debian's `chromium` and `chromium-driver`). Each feature
//! of the board has its section below, each with assertions that fail when
//! the feature breaks: the values shown against the JSON API, moves by
//! click and by typing, the DTM badges shown whole, the colours, "Start",
//! the editor, the history with its URL, back / forward and the arrow
//! keys, the last move, flipping, the review stepped move by move, the
//! note on positions no game reaches, and the layout on a phone-sized
//! window. It saves screenshots (`target/browser-*.png`).
//!
//! Ignored by a plain `cargo test` (it needs a browser); `.ci/run`, which
//! installs Chromium and chromedriver, runs it with
//! `cargo test -p morris-server --test it -- --ignored browser::`. Run so,
//! a machine without them fails the test: it never passes without a
//! browser.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use morris_db::{Position, RuleSet};
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

async fn api_position(addr: SocketAddr, rules: &str, position: &str) -> Json {
    api_get(addr, &format!("/api/{rules}?position={}", position.replace(' ', "_"))).await
}

async fn js(c: &Client, script: &str, args: Vec<Json>) -> Json {
    c.execute(script, args).await.unwrap_or_else(|e| panic!("script failed ({e}): {script}"))
}

/// Waits until `script` returns `expected`.
async fn wait_for(c: &Client, script: &str, expected: Json) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let got = js(c, script, vec![]).await;
        if got == expected {
            return;
        }
        assert!(Instant::now() < deadline, "`{script}` gives {got}, not {expected}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until the page has loaded the position `position` (our notation).
async fn wait_for_position(c: &Client, position: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let shown = js(c, "return document.getElementById('postext').value", vec![]).await;
        let ready = js(c, "return document.body.dataset.ready || ''", vec![]).await;
        if shown == position && ready != "" {
            // Rendered after the field is set: one more turn of the event loop.
            tokio::time::sleep(Duration::from_millis(30)).await;
            return;
        }
        assert!(Instant::now() < deadline, "the page shows {shown}, not {position}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The value and the move list the page shows, as (notation, category,
/// dtm) strings.
async fn shown(c: &Client) -> (String, String, Vec<(String, String, String)>) {
    let v = js(
        c,
        "const v = document.getElementById('value'); \
         const moves = [...document.querySelectorAll('#moves li button')].map(b => [b.dataset.notation, b.dataset.category, b.dataset.dtm]); \
         return [v.dataset.category || '', v.dataset.dtm || '', moves];",
        vec![],
    )
    .await;
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
    let api = api_position(addr, rules, position).await;
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

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("no {css}: {e}")).click().await.unwrap();
}

async fn click_point(c: &Client, point: &str) {
    click(c, &format!("[data-point='{point}']")).await;
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

/// Presses `key` with nothing focused (the page's own keys, not a field's).
async fn press(c: &Client, key: Key) {
    js(c, "if (document.activeElement) document.activeElement.blur();", vec![]).await;
    let k: char = key.into();
    let keys = KeyActions::new("keyboard".into()).then(KeyAction::Down { value: k }).then(KeyAction::Up { value: k });
    c.perform_actions(keys).await.unwrap();
}

/// Sets a field or select the way typing or choosing does (an `input` and
/// a `change` event).
async fn set_field(c: &Client, id: &str, value: &str) {
    js(
        c,
        "const e = document.getElementById(arguments[0]); e.value = arguments[1]; \
         e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true}));",
        vec![json!(id), json!(value)],
    )
    .await;
}

async fn postext(c: &Client) -> String {
    js(c, "return document.getElementById('postext').value", vec![]).await.as_str().unwrap().to_string()
}

async fn save_screenshot(c: &Client, name: &str) -> PathBuf {
    let png = c.screenshot().await.unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, png).unwrap();
    path
}

fn under(text: &str) -> String {
    text.replace(' ', "_")
}

/// The won position of nine's 3-3 sector, hand-checked in morris-probe's
/// docs: `Win(15)`.
const NINE_WIN15: &str = "W:a4,d1,g4 B:b2,d6,f2 w";

struct Board {
    c: Client,
    addr: SocketAddr,
    nine: PathBuf,
    six: PathBuf,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver: .ci/run runs it (`--ignored browser::`)"]
async fn the_board_in_chromium() {
    let (Some(driver), Some(chromium)) =
        (find_program(&["chromedriver"]), find_program(&["chromium", "chromium-browser", "google-chrome"]))
    else {
        panic!("chromedriver or chromium is not on the PATH (apt-get install chromium chromium-driver)");
    };

    // Small databases: nine's 3-3 sector (no reachability bitmaps), six
    // completely with its bitmaps (`morris reach`).
    let tmp = tempfile::tempdir().unwrap();
    let (nine, six) = (tmp.path().join("nine"), tmp.path().join("six"));
    let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
    morris_solver::solve_sliding(&RuleSet::preset("nine").unwrap(), &nine, &options).unwrap();
    let six_rules = RuleSet::preset("six").unwrap();
    morris_solver::solve_all(&six_rules, &six, false).unwrap();
    morris_solver::reach::reach_all(&six_rules, &six, |_| {}).unwrap();
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
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,1100"],
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
            Err(_) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(200)).await,
            Err(e) => panic!("cannot reach chromedriver: {e}"),
        }
    };
    let b = Board { c, addr, nine, six };

    plays_and_shows_the_api_values(&b).await;
    dtm_badges_are_whole_and_coloured(&b).await;
    start_is_the_empty_board(&b).await;
    the_editor_sets_up_positions(&b).await;
    history_url_and_keys(&b).await;
    the_last_move_is_highlighted(&b).await;
    the_board_flips(&b).await;
    a_review_steps_through_the_game(&b).await;
    unreachable_positions_are_said_so(&b).await;
    fits_a_phone(&b).await;

    b.c.close().await.unwrap();
    running.stop().await.unwrap();
}

/// Moves by clicking and by typing, back and forward, against the API's
/// values; a stone picked up shows its targets; against perfect play the
/// page answers at once.
async fn plays_and_shows_the_api_values(b: &Board) {
    let (c, addr) = (&b.c, b.addr);
    c.goto(&format!("http://{addr}/?rules=nine&position={}", under(NINE_WIN15))).await.unwrap();
    let api0 = check_against_api(c, addr, "nine", NINE_WIN15).await;
    assert_eq!((api0["category"].as_str(), api0["dtm"].as_u64()), (Some("win"), Some(15)));
    // The board marks White's stones with the best value of their moves.
    let best = &api0["moves"][0];
    let marker = js(
        c,
        "const m = document.querySelector(`[data-marker='${arguments[0]}']`); return m ? m.dataset.category : null;",
        vec![best["from"].clone()],
    )
    .await;
    assert_eq!(marker, "win");
    // Play the best move, then Black's best reply, by clicking.
    click_move(c, &api0["moves"], best).await;
    let api1 = check_against_api(c, addr, "nine", best["position"].as_str().unwrap()).await;
    assert_eq!((api1["category"].as_str(), api1["dtm"].as_u64()), (Some("loss"), Some(14)));
    let reply = api1["moves"][0].clone();
    click_move(c, &api1["moves"], &reply).await;
    let api2 = check_against_api(c, addr, "nine", reply["position"].as_str().unwrap()).await;
    assert_eq!(api2["dtm"], 13);
    // Back twice, forward once.
    click(c, "#undo").await;
    wait_for_position(c, best["position"].as_str().unwrap()).await;
    click(c, "#undo").await;
    wait_for_position(c, NINE_WIN15).await;
    click(c, "#redo").await;
    check_against_api(c, addr, "nine", best["position"].as_str().unwrap()).await;
    // A move by keyboard: the worst reply, typed.
    let worst = api1["moves"].as_array().unwrap().last().unwrap();
    let typed = c.find(Locator::Id("typed")).await.unwrap();
    typed.send_keys(&format!("{}\n", worst["notation"].as_str().unwrap())).await.unwrap();
    check_against_api(c, addr, "nine", worst["position"].as_str().unwrap()).await;

    // Six from the start: placements by clicking, each checked.
    c.goto(&format!("http://{addr}/?rules=six")).await.unwrap();
    let mut pos = "W: B: w 6 6".to_string();
    for _ in 0..4 {
        let api = check_against_api(c, addr, "six", &pos).await;
        let mv = api["moves"][0].clone();
        click_move(c, &api["moves"], &mv).await;
        pos = mv["position"].as_str().unwrap().to_string();
    }
    let api = check_against_api(c, addr, "six", &pos).await;
    assert_eq!(api["phase"], "placement");
    save_screenshot(c, "browser-six.png").await;

    // Back to nine, a White stone picked up: every target it has, marked.
    c.goto(&format!("http://{addr}/?rules=nine&position={}", under(NINE_WIN15))).await.unwrap();
    wait_for_position(c, NINE_WIN15).await;
    click_point(c, best["from"].as_str().unwrap()).await;
    let targets = js(c, "return document.querySelectorAll('[data-marker]').length", vec![]).await;
    let mut t: Vec<&str> = api0["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["from"] == best["from"])
        .map(|m| m["to"].as_str().unwrap())
        .collect();
    t.sort_unstable();
    t.dedup();
    assert!(!t.is_empty());
    assert_eq!(targets, t.len() as u64, "one marker per target of the stone picked up");
    save_screenshot(c, "browser-board.png").await;

    // Against perfect play: you take Black on six's start, the page plays
    // White's best move at once (the API's first).
    c.goto(&format!("http://{addr}/?rules=six&mode=black")).await.unwrap();
    let api = api_get(addr, "/api/six?position=W:_B:_w_6_6").await;
    wait_for_position(c, api["moves"][0]["position"].as_str().unwrap()).await;
}

/// Every marker's badge shows its whole DTM, inside the badge and inside
/// the ring round its stone (the ring once hid the first digit of two-digit
/// DTMs), on the value's colour: wins green, losses red, draws grey.
async fn dtm_badges_are_whole_and_coloured(b: &Board) {
    let (c, addr) = (&b.c, b.addr);
    let mut seen = std::collections::BTreeMap::new();
    let mut two_digits = 0;
    let api0 = api_position(addr, "nine", NINE_WIN15).await;
    let six_mid = {
        // Six after two placements: draws and losses among the moves.
        let s = api_get(addr, "/api/six?position=W:_B:_w_6_6").await;
        let p1 = s["moves"][0]["position"].as_str().unwrap().to_string();
        let s1 = api_position(addr, "six", &p1).await;
        s1["moves"][0]["position"].as_str().unwrap().to_string()
    };
    // Nine's stones (rings), one stone's targets (discs), six's points.
    let views: [(&str, &str, Option<&str>); 3] =
        [("nine", NINE_WIN15, None), ("nine", NINE_WIN15, api0["moves"][0]["from"].as_str()), ("six", &six_mid, None)];
    for (rules, position, pick) in views {
        c.goto(&format!("http://{addr}/?rules={rules}&position={}", under(position))).await.unwrap();
        wait_for_position(c, position).await;
        if let Some(p) = pick {
            click_point(c, p).await;
        }
        let markers = js(
            c,
            "return [...document.querySelectorAll('[data-marker]')].map(g => { \
               const ring = g.querySelector(':scope > circle'); const rect = g.querySelector('.badge rect'); \
               const text = g.querySelector('.badge text'); const tb = text.getBBox(); const rb = rect.getBBox(); \
               const inRect = tb.x >= rb.x - 0.01 && tb.y >= rb.y - 0.01 && tb.x + tb.width <= rb.x + rb.width + 0.01 && tb.y + tb.height <= rb.y + rb.height + 0.01; \
               let inRing = true; \
               if (ring) { const cx = +ring.getAttribute('cx'), cy = +ring.getAttribute('cy'); \
                 const inner = +ring.getAttribute('r') - (+ring.getAttribute('stroke-width')) / 2; \
                 for (const [x, y] of [[tb.x, tb.y], [tb.x + tb.width, tb.y], [tb.x, tb.y + tb.height], [tb.x + tb.width, tb.y + tb.height]]) \
                   if (Math.hypot(x - cx, y - cy) > inner) inRing = false; } \
               const last = text === g.lastElementChild.lastElementChild; \
               return [g.dataset.category, g.dataset.dtm, text.textContent, inRect, inRing, last, getComputedStyle(rect).fill, tb.width > 0]; })",
            vec![],
        )
        .await;
        let markers = markers.as_array().unwrap();
        assert!(!markers.is_empty(), "{rules} {position}: no markers");
        for m in markers {
            let (cat, dtm, text) = (m[0].as_str().unwrap(), m[1].as_str().unwrap(), m[2].as_str().unwrap());
            let expected = if dtm.is_empty() { "=" } else { dtm };
            assert_eq!(text, expected, "{rules} {position}: the badge shows {text}, the DTM is {dtm}: {m}");
            assert_eq!(m[7], true, "{rules} {position}: the badge's text is not laid out: {m}");
            assert_eq!(m[3], true, "{rules} {position}: the text overflows its badge: {m}");
            assert_eq!(m[4], true, "{rules} {position}: the ring crosses the text: {m}");
            assert_eq!(m[5], true, "{rules} {position}: something is drawn over the text: {m}");
            if text.len() >= 2 {
                two_digits += 1;
            }
            seen.insert(cat.to_string(), m[6].as_str().unwrap().to_string());
        }
        if rules == "nine" && pick.is_none() {
            save_screenshot(c, "browser-badges.png").await;
        }
    }
    assert!(two_digits > 0, "no two-digit DTM among the markers checked");
    // The colours players read: green, red, grey (the page's --win, --loss, --draw).
    let colour = |cat: &str| seen.get(cat).cloned();
    assert_eq!(colour("win").as_deref(), Some("rgb(27, 138, 58)"), "{seen:?}");
    assert_eq!(colour("loss").as_deref(), Some("rgb(192, 38, 45)"), "{seen:?}");
    assert_eq!(colour("draw").as_deref(), Some("rgb(107, 114, 128)"), "{seen:?}");
    // The move list in the same colours.
    let list = js(
        c,
        "return Object.fromEntries([...document.querySelectorAll('#moves li button')].map(b => [b.dataset.category, getComputedStyle(b).color]))",
        vec![],
    )
    .await;
    for (cat, rgb) in [("draw", "rgb(107, 114, 128)"), ("loss", "rgb(192, 38, 45)")] {
        if let Some(got) = list.get(cat) {
            assert_eq!(got, rgb, "the move list's {cat}: {list}");
        }
    }
}

/// "Start" shows the rule set's start, the empty board with every stone
/// in hand, also where the tables do not cover it (nine here: 3-3 only).
async fn start_is_the_empty_board(b: &Board) {
    let (c, addr) = (&b.c, b.addr);
    let stones = "return document.querySelectorAll('[data-stone]').length";
    c.goto(&format!("http://{addr}/?rules=six&position={}", under("W:b4,d6 B:f4 b 4 5"))).await.unwrap();
    wait_for_position(c, "W:b4,d6 B:f4 b 4 5").await;
    click(c, "#reset").await;
    check_against_api(c, addr, "six", "W: B: w 6 6").await;
    assert_eq!(js(c, stones, vec![]).await, 0);
    c.goto(&format!("http://{addr}/?rules=nine&position={}", under(NINE_WIN15))).await.unwrap();
    wait_for_position(c, NINE_WIN15).await;
    click(c, "#reset").await;
    wait_for_position(c, "W: B: w 9 9").await;
    assert_eq!(js(c, stones, vec![]).await, 0);
    let msg = js(c, "return document.getElementById('msg').textContent", vec![]).await;
    assert!(msg.as_str().unwrap().contains("0-0-9-9"), "nine's start has no table here: {msg}");
}

/// The editor: stones placed and removed by clicking, the side to move,
/// stones in hand, the rule set; the position set up is analysed.
async fn the_editor_sets_up_positions(b: &Board) {
    let (c, addr) = (&b.c, b.addr);
    c.goto(&format!("http://{addr}/?rules=six")).await.unwrap();
    wait_for_position(c, "W: B: w 6 6").await;
    click(c, "#edit").await;
    assert_eq!(js(c, "return document.getElementById('editor').hidden", vec![]).await, false);
    click(c, "#edit-clear").await;
    click(c, "#tool-white").await;
    for p in ["b4", "d6", "d2"] {
        click_point(c, p).await;
    }
    click(c, "#tool-black").await;
    click_point(c, "f4").await;
    // A stone removed again: with the eraser, and by clicking a stone of the
    // colour being placed.
    click(c, "#tool-erase").await;
    click_point(c, "d2").await;
    click(c, "#tool-black").await;
    click_point(c, "f2").await;
    click_point(c, "f2").await;
    set_field(c, "edit-side", "b").await;
    set_field(c, "edit-wh", "4").await;
    set_field(c, "edit-bh", "5").await;
    let shown = js(
        c,
        "return [...document.querySelectorAll('[data-stone]')].map(s => s.dataset.stone + ':' + s.dataset.at).sort()",
        vec![],
    )
    .await;
    assert_eq!(shown, json!(["black:f4", "white:b4", "white:d6"]));
    click(c, "#edit-done").await;
    // The position the API test checks (tests/it/api.rs), values and all.
    check_against_api(c, addr, "six", "W:b4,d6 B:f4 b 4 5").await;
    assert_eq!(js(c, "return document.getElementById('editor').hidden", vec![]).await, true);

    // A position the rules refuse: said so, the editor stays open.
    click(c, "#edit").await;
    click(c, "#tool-white").await;
    set_field(c, "edit-wh", "6").await;
    click(c, "#edit-done").await;
    wait_for(c, "return document.getElementById('msg').textContent.length > 0", json!(true)).await;
    assert_eq!(js(c, "return document.getElementById('editor').hidden", vec![]).await, false);
    assert_eq!(postext(c).await, "W:b4,d6 B:f4 b 4 5", "a refused position is not shown");

    // Another rule set, chosen while editing: nine's 3-3 position set up
    // from an empty board.
    set_field(c, "rules", "nine").await;
    wait_for(c, "return document.getElementById('rules').value", json!("nine")).await;
    click(c, "#edit-clear").await;
    set_field(c, "edit-wh", "0").await;
    set_field(c, "edit-bh", "0").await;
    set_field(c, "edit-side", "w").await;
    click(c, "#tool-white").await;
    for p in ["a4", "d1", "g4"] {
        click_point(c, p).await;
    }
    click(c, "#tool-black").await;
    for p in ["b2", "d6", "f2"] {
        click_point(c, p).await;
    }
    click(c, "#edit-done").await;
    let api = check_against_api(c, addr, "nine", NINE_WIN15).await;
    assert_eq!(api["dtm"], 15);
}

/// The moves played, numbered; any of them shown by a click, by back and
/// forward, and by the arrow keys, Home and End; a new move from an
/// earlier position drops the rest; each position's URL opens it.
async fn history_url_and_keys(b: &Board) {
    let (c, addr) = (&b.c, b.addr);
    c.goto(&format!("http://{addr}/?rules=six")).await.unwrap();
    let mut positions = vec!["W: B: w 6 6".to_string()];
    let mut notations = Vec::new();
    let mut apis = Vec::new();
    for _ in 0..3 {
        let api = check_against_api(c, addr, "six", positions.last().unwrap()).await;
        let mv = api["moves"][0].clone();
        click_move(c, &api["moves"], &mv).await;
        positions.push(mv["position"].as_str().unwrap().to_string());
        notations.push(mv["notation"].as_str().unwrap().to_string());
        apis.push(api);
    }
    check_against_api(c, addr, "six", &positions[3]).await;
    let history = "return [...document.querySelectorAll('#history button')].map(b => [b.dataset.ply, b.textContent, b.classList.contains('cur')])";
    let h = js(c, history, vec![]).await;
    assert_eq!(
        h,
        json!([
            ["0", "start", false],
            ["1", notations[0], false],
            ["2", notations[1], false],
            ["3", notations[2], true]
        ])
    );
    let numbers = js(c, "return [...document.querySelectorAll('#history .num')].map(s => s.textContent)", vec![]).await;
    assert_eq!(numbers, json!(["1.", "2."]));
    // A move of the history, clicked.
    click(c, "#history button[data-ply='1']").await;
    check_against_api(c, addr, "six", &positions[1]).await;
    // The keys: left, right, right, Home, End.
    press(c, Key::Left).await;
    wait_for_position(c, &positions[0]).await;
    press(c, Key::Right).await;
    wait_for_position(c, &positions[1]).await;
    press(c, Key::Right).await;
    check_against_api(c, addr, "six", &positions[2]).await;
    press(c, Key::Home).await;
    wait_for_position(c, &positions[0]).await;
    assert_eq!(js(c, "return document.getElementById('undo').disabled", vec![]).await, true);
    press(c, Key::End).await;
    wait_for_position(c, &positions[3]).await;
    assert_eq!(js(c, "return document.getElementById('redo').disabled", vec![]).await, true);

    // Each position's link opens it: the one shown, in a fresh page.
    press(c, Key::Left).await;
    wait_for_position(c, &positions[2]).await;
    let link = js(c, "return document.getElementById('share').value", vec![]).await.as_str().unwrap().to_string();
    assert_eq!(c.current_url().await.unwrap().as_str(), link);
    c.goto("about:blank").await.unwrap();
    c.goto(&link).await.unwrap();
    check_against_api(c, addr, "six", &positions[2]).await;

    // Another move from the first position: the history's tail goes.
    c.goto(&format!("http://{addr}/?rules=six")).await.unwrap();
    for (i, api) in apis.iter().enumerate() {
        wait_for_position(c, &positions[i]).await;
        click_move(c, &api["moves"], &api["moves"][0]).await;
    }
    wait_for_position(c, &positions[3]).await;
    click(c, "#history button[data-ply='1']").await;
    wait_for_position(c, &positions[1]).await;
    let other = apis[1]["moves"].as_array().unwrap().last().unwrap().clone();
    assert_ne!(other["notation"], json!(notations[1]));
    click_move(c, &apis[1]["moves"], &other).await;
    check_against_api(c, addr, "six", other["position"].as_str().unwrap()).await;
    let h = js(c, history, vec![]).await;
    assert_eq!(h, json!([["0", "start", false], ["1", notations[0], false], ["2", other["notation"], true]]));
}

/// The last move marked on the board: where the stone came from, where it
/// went, the stone it took; nothing before the first move.
async fn the_last_move_is_highlighted(b: &Board) {
    let (c, addr) = (&b.c, b.addr);
    let rules = RuleSet::preset("nine").unwrap();
    let board = rules.board();
    // A 3-3 position with a move that closes a mill and takes a stone.
    let (pos, mv) = morris_server::bench::random_positions(&rules, 6, 5000, 11)
        .into_iter()
        .map(|t| Position::parse(&t, &rules).unwrap())
        .find_map(|p| p.legal_moves(&rules).into_iter().find(|m| m.removals() != 0 && m.from.is_some()).map(|m| (p, m)))
        .expect("a mill-closing slide among 5,000 positions");
    let text = pos.to_text(board);
    c.goto(&format!("http://{addr}/?rules=nine&position={}", under(&text))).await.unwrap();
    let api = check_against_api(c, addr, "nine", &text).await;
    assert_eq!(js(c, "return document.querySelectorAll('[data-last]').length", vec![]).await, 0);
    let notation = mv.notation(board);
    let mj = api["moves"].as_array().unwrap().iter().find(|m| m["notation"] == json!(notation)).unwrap().clone();
    click_move(c, &api["moves"], &mj).await;
    wait_for_position(c, &pos.play_unchecked(mv).to_text(board)).await;
    let last = js(
        c,
        "return [...document.querySelectorAll('[data-last]')].map(e => { \
           const p = [...document.querySelectorAll('[data-point]')].find(h => h.getAttribute('cx') === e.getAttribute('cx') && h.getAttribute('cy') === e.getAttribute('cy')); \
           return e.dataset.last + ':' + (p ? p.dataset.point : '?'); }).sort()",
        vec![],
    )
    .await;
    let removed = morris_db::Points(mv.removals()).map(|p| format!("removed:{}", board.point_name(p)));
    let mut expected: Vec<String> =
        [format!("from:{}", board.point_name(mv.from.unwrap())), format!("to:{}", board.point_name(mv.to))]
            .into_iter()
            .chain(removed)
            .collect();
    expected.sort();
    assert_eq!(last, json!(expected), "{notation}");
    click(c, "#undo").await;
    wait_for_position(c, &text).await;
    assert_eq!(js(c, "return document.querySelectorAll('[data-last]').length", vec![]).await, 0);
}

/// Flipping turns the board round (a1 from the bottom left to the top
/// right), keeps it playable, and goes into the URL.
async fn the_board_flips(b: &Board) {
    let (c, addr) = (&b.c, b.addr);
    let corners = "const at = (n) => { const r = document.querySelector(`[data-point='${n}']`).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }; \
                   const a = at('a1'), g = at('g7'); return [a[0] < g[0], a[1] > g[1]];";
    c.goto(&format!("http://{addr}/?rules=nine&position={}", under(NINE_WIN15))).await.unwrap();
    let api = check_against_api(c, addr, "nine", NINE_WIN15).await;
    assert_eq!(js(c, corners, vec![]).await, json!([true, true]), "a1 at the bottom left");
    click(c, "#flip").await;
    assert_eq!(js(c, corners, vec![]).await, json!([false, false]), "a1 at the top right once flipped");
    assert!(c.current_url().await.unwrap().as_str().contains("flip=1"));
    // Still played by clicking the points.
    let best = api["moves"][0].clone();
    click_move(c, &api["moves"], &best).await;
    check_against_api(c, addr, "nine", best["position"].as_str().unwrap()).await;
    // The URL keeps it flipped.
    let url = c.current_url().await.unwrap().to_string();
    c.goto(&url).await.unwrap();
    wait_for_position(c, best["position"].as_str().unwrap()).await;
    assert_eq!(js(c, corners, vec![]).await, json!([false, false]));
    click(c, "#flip").await;
    assert_eq!(js(c, corners, vec![]).await, json!([true, true]));
}

/// A review: the game becomes the history, each move marked (the mistake
/// as `??`), stepped through move by move with the judgement of each.
async fn a_review_steps_through_the_game(b: &Board) {
    let (c, addr) = (&b.c, b.addr);
    let rules = RuleSet::preset("nine").unwrap();
    let board = rules.board();
    let db = morris_probe::Database::open(&b.nine, rules.clone()).unwrap();
    let start = Position::parse(NINE_WIN15, &rules).unwrap();
    let moves = db.analyze(&start).unwrap();
    // A move that throws the win away (the probe says it does not win), and
    // the best reply to it.
    let (bad, _) =
        *moves.iter().find(|(_, v)| !matches!(v, morris_db::Value::Win(_))).expect("a move that does not win");
    let after_bad = start.play_unchecked(bad);
    let (reply, _) = db.analyze(&after_bad).unwrap()[0];
    let pgn = format!(
        "[FEN \"{}\"]\n\n1. {} {} *\n",
        start.to_fen(&rules).unwrap(),
        bad.notation(board),
        reply.notation(board)
    );
    c.goto(&format!("http://{addr}/?rules=nine&position={}", under(NINE_WIN15))).await.unwrap();
    wait_for_position(c, NINE_WIN15).await;
    set_field(c, "record", &pgn).await;
    click(c, "#review").await;
    wait_for(c, "return document.querySelectorAll('#history button').length", json!(3)).await;
    wait_for_position(c, NINE_WIN15).await;
    let marks = js(
        c,
        "return [...document.querySelectorAll('#history button')].map(b => [b.textContent, b.dataset.mark || ''])",
        vec![],
    )
    .await;
    assert_eq!(
        marks,
        json!([["start", ""], [format!("{}??", bad.notation(board)), "threw_win"], [reply.notation(board), "kept"]])
    );
    let judgement = "const j = document.getElementById('judgement'); return [j.dataset.mark, j.textContent]";
    // The next mistake: the first move, its judgement and the best move.
    click(c, "#nextmistake").await;
    check_against_api(c, addr, "nine", &after_bad.to_text(board)).await;
    let j = js(c, judgement, vec![]).await;
    assert_eq!(j[0], "threw_win", "{j}");
    let best = moves[0].0.notation(board);
    assert!(j[1].as_str().unwrap().contains(&format!("best was {best}")), "{j}");
    assert_eq!(js(c, "return document.querySelectorAll('[data-glyph=threw_win]').length", vec![]).await, 1);
    save_screenshot(c, "browser-review.png").await;
    // Stepped on with the arrow key: the reply kept the value.
    press(c, Key::Right).await;
    check_against_api(c, addr, "nine", &after_bad.play_unchecked(reply).to_text(board)).await;
    assert_eq!(js(c, judgement, vec![]).await[0], "kept");
    assert_eq!(js(c, "return document.getElementById('nextmistake').disabled", vec![]).await, true);
    press(c, Key::Home).await;
    wait_for_position(c, NINE_WIN15).await;
    assert_eq!(js(c, judgement, vec![]).await[0], "");
}

/// A position no game reaches (six's bitmaps) is said so, on the board
/// and beside it; a reachable one is not; nine here has no bitmaps.
async fn unreachable_positions_are_said_so(b: &Board) {
    let (c, addr) = (&b.c, b.addr);
    let rules = RuleSet::preset("six").unwrap();
    let reach = |t: &String| {
        morris_probe::reach::reachable(&b.six, &rules, &Position::parse(t, &rules).unwrap()).unwrap().unwrap()
    };
    let sample = morris_server::bench::random_positions(&rules, 12, 200, 5);
    let unreachable = sample.iter().find(|t| !reach(t)).expect("an unreachable position among 200");
    let reachable = sample.iter().find(|t| reach(t)).expect("a reachable position among 200");
    let state = "const r = document.getElementById('reach'); \
                 return [r.dataset.reachable, r.textContent.length > 0, !!document.getElementById('unreachable-banner')]";
    let text_of = |t: &String| Position::parse(t, &rules).unwrap().to_text(rules.board());
    c.goto(&format!("http://{addr}/?rules=six&position={}", under(unreachable))).await.unwrap();
    check_against_api(c, addr, "six", &text_of(unreachable)).await;
    assert_eq!(js(c, state, vec![]).await, json!(["false", true, true]), "{unreachable}");
    save_screenshot(c, "browser-unreachable.png").await;
    c.goto(&format!("http://{addr}/?rules=six&position={}", under(reachable))).await.unwrap();
    check_against_api(c, addr, "six", &text_of(reachable)).await;
    assert_eq!(js(c, state, vec![]).await, json!(["true", false, false]), "{reachable}");
    c.goto(&format!("http://{addr}/?rules=nine&position={}", under(NINE_WIN15))).await.unwrap();
    wait_for_position(c, NINE_WIN15).await;
    assert_eq!(js(c, state, vec![]).await, json!(["null", false, false]));
}

/// A phone-sized window: nothing wider than the screen.
async fn fits_a_phone(b: &Board) {
    let c = &b.c;
    c.set_window_size(390, 844).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fits = js(c, "return document.documentElement.scrollWidth <= window.innerWidth + 1", vec![]).await;
    assert_eq!(fits, true, "the page is wider than a phone's screen");
    save_screenshot(c, "browser-phone.png").await;
    c.set_window_size(1000, 1100).await.unwrap();
}
