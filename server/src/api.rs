//! The HTTP API: routes, query parsing, the JSON answers and the errors.
//!
//! A position answer (`GET /api/{rules}?position=...`, see
//! [`PositionJson`]) follows the shape of the lichess tablebase API where
//! the games agree (`category`, `dtm`, `moves` best first, each with its
//! own `category` and `dtm`), but every value is from the point of view of
//! the player it concerns: the side to move for the position, the mover for
//! a move (lichess gives a move's value from the opponent's side).

use std::sync::Arc;

use axum::extract::rejection::StringRejection;
use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use morris_db::{Bitboard, Board, Color, EndReason, Move, Outcome, Points, Position, RuleSet, Setup};
use serde::Serialize;

use crate::review::{review_record, ReviewJson};
use crate::served::{Catalog, Served};
use crate::source::{Eval, LookupError, Source};
use crate::{MAX_BODY, MAX_QUERY};

/// The web board: one page, HTML with its CSS and JavaScript inline.
pub const PAGE: &str = include_str!("page.html");

/// The most plies `GET /api/{rules}/line` lists.
pub const MAX_LINE_PLIES: usize = 1000;

/// Plies of a drawing line listed when `plies` is not given.
pub const DRAW_LINE_PLIES: usize = 12;

/// The router of the whole server over `catalog`.
pub fn router(catalog: Arc<Catalog>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/api/rules", get(rules_list))
        .route("/api/{rules}", get(position))
        .route("/api/{rules}/line", get(line))
        .route("/api/{rules}/review", post(review))
        .fallback(not_found)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(MAX_BODY))
        .layer(axum::middleware::from_fn(limit_query))
        .with_state(catalog)
}

/// An error answer: a status and `{"error": code, "message": ..., "sector"?,
/// "file"?}`.
#[derive(Debug, Clone, Serialize)]
pub struct ApiError {
    #[serde(skip)]
    status: StatusCode,
    /// `bad_position`, `unknown_rules`, `bad_parameter`, `bad_record`,
    /// `missing_table`, `damaged_table`, `permission_denied`, `too_long`, `not_found`,
    /// `method_not_allowed`, `overloaded` (503, with `Retry-After`),
    /// `timeout`, `http_error` or `internal`.
    pub error: &'static str,
    /// What is wrong, in words.
    pub message: String,
    /// The sector whose table is missing (`missing_table` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sector: Option<String>,
    /// The file that is missing or damaged (name only, never the server's
    /// directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, error: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, error, message: message.into(), sector: None, file: None }
    }

    fn bad_parameter(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_parameter", message)
    }

    fn bad_position(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_position", message)
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl From<LookupError> for ApiError {
    fn from(e: LookupError) -> ApiError {
        match e {
            LookupError::BadPosition(m) => ApiError::bad_position(m),
            LookupError::Missing { sector, file, message } => ApiError {
                status: StatusCode::NOT_FOUND,
                error: "missing_table",
                message: strip_dirs(&message, &file),
                sector: Some(sector),
                file: Some(file),
            },
            LookupError::Damaged { file, message } => ApiError {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                error: "damaged_table",
                message: strip_dirs(&message, &file),
                sector: None,
                file: Some(file),
            },
            LookupError::PermissionDenied { file, message } => ApiError {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                error: "permission_denied",
                message: strip_dirs(&message, &file),
                sector: None,
                file: Some(file),
            },
            LookupError::Other(m) => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", m),
        }
    }
}

/// The message without the server's directories: every whitespace-separated
/// word that is a path ending in `file` is cut down to `file`, and any
/// other absolute path is dropped (clients learn file names, not where the
/// server keeps them).
fn strip_dirs(message: &str, file: &str) -> String {
    message
        .split(' ')
        .map(|w| {
            let bare = w.trim_end_matches([':', ',', ')', ';']);
            let tail = &w[bare.len()..];
            if !file.is_empty() && bare.ends_with(file) && bare.contains('/') {
                format!("{file}{tail}")
            } else if bare.starts_with('/') {
                format!("<dir>{tail}")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self)).into_response()
    }
}

/// Refuses a query string longer than [`MAX_QUERY`] bytes with 414.
async fn limit_query(req: Request, next: Next) -> Response {
    if req.uri().query().is_some_and(|q| q.len() > MAX_QUERY) {
        return ApiError::new(
            StatusCode::URI_TOO_LONG,
            "too_long",
            format!("the query is longer than {MAX_QUERY} bytes"),
        )
        .into_response();
    }
    next.run(req).await
}

async fn page() -> impl IntoResponse {
    ([(header::CACHE_CONTROL, "no-cache")], Html(PAGE))
}

async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "no such resource; the API is GET /api/rules, GET /api/{rules}?position=..., GET /api/{rules}/line?position=..., POST /api/{rules}/review",
    )
}

/// The served database of `name`, or 400 `unknown_rules`.
fn served<'a>(catalog: &'a Catalog, name: &str) -> Result<&'a Served, ApiError> {
    catalog.get(name).ok_or_else(|| {
        let names: Vec<&str> = catalog.all().iter().map(|s| s.rules().name()).collect();
        let what = if RuleSet::preset(name).is_ok() { "is not served here" } else { "is not a rule set" };
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "unknown_rules",
            format!("`{}` {what}; served: {}", truncate(name, 40), names.join(", ")),
        )
    })
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// A query string's parameters, refusing unknown and repeated ones.
///
/// # Errors
/// `bad_parameter` for a malformed query, a parameter not in `allowed`, or
/// one given twice.
pub fn parse_query(raw: Option<&str>, allowed: &[&str]) -> Result<Vec<(String, String)>, ApiError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw.unwrap_or(""))
        .map_err(|e| ApiError::bad_parameter(format!("malformed query: {e}")))?;
    let mut seen: Vec<&str> = Vec::new();
    for (k, _) in &pairs {
        if !allowed.contains(&k.as_str()) {
            return Err(ApiError::bad_parameter(format!(
                "unknown parameter `{}`; this request takes: {}",
                truncate(k, 40),
                allowed.join(", ")
            )));
        }
        if seen.contains(&k.as_str()) {
            return Err(ApiError::bad_parameter(format!("parameter `{k}` is given twice")));
        }
        seen.push(k);
    }
    Ok(pairs)
}

fn param<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// The position of `position=` (our notation, or a FEN; `_` may stand for
/// a space) or `fen=` (Sanmill's FEN), checked against `rules`.
///
/// # Errors
/// `bad_parameter` when neither or both are given, `bad_position` when the
/// text is not a valid position of the rule set.
pub fn position_param(pairs: &[(String, String)], rules: &RuleSet) -> Result<Position, ApiError> {
    let pos = match (param(pairs, "position"), param(pairs, "fen")) {
        (Some(_), Some(_)) => return Err(ApiError::bad_parameter("give `position` or `fen`, not both")),
        (None, None) => {
            return Err(ApiError::bad_parameter("missing `position` (e.g. position=W:a4,a1,d3_B:a7,d1,c4_w) or `fen`"))
        }
        (Some(text), None) => Position::read_for(&text.replace('_', " "), rules),
        (None, Some(text)) if !text.contains('/') => {
            return Err(ApiError::bad_position(format!(
                "`{}` is not a FEN (its board has no `/`); give our notation as `position`",
                truncate(text, 80)
            )))
        }
        (None, Some(text)) => Position::read_for(&text.replace('_', " "), rules),
    }
    .map_err(|e| ApiError::bad_position(e.to_string()))?
    .0;
    Ok(pos)
}

/// Runs `f` on a blocking thread once a look-up permit is free.
async fn blocking<T: Send + 'static>(
    catalog: &Catalog,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let _permit = catalog
        .permits
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "internal", "the server is stopping"))?;
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", format!("the look-up failed: {e}")))?
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Stones of one player.
#[derive(Debug, Serialize)]
pub struct StonesJson {
    /// On the board.
    pub board: u32,
    /// In hand.
    pub hand: u8,
}

/// Stones of both players.
#[derive(Debug, Serialize)]
pub struct BothStones {
    /// White's.
    pub white: StonesJson,
    /// Black's.
    pub black: StonesJson,
}

/// How the game has ended.
#[derive(Debug, Serialize)]
pub struct GameOverJson {
    /// `two_stones` (a player is down to two stones), `line` (Three Men's
    /// Morris: a line of three), `full_board` (no move on a full board: a
    /// draw or a loss for White by the rule set) or `blocked` (the side to
    /// move has no legal move).
    pub reason: &'static str,
    /// `white` or `black`, or `null` for a draw.
    pub winner: Option<&'static str>,
    /// The rule in words, e.g. `Black cannot move`.
    pub why: String,
}

/// Why and how the game is over in `pos` ([`Position::game_over`]), or
/// `None` while it goes on.
pub fn game_over(rules: &RuleSet, pos: &Position) -> Option<GameOverJson> {
    let over = pos.game_over(rules)?;
    let reason = match over.reason {
        EndReason::FewerThanThree(_) => "two_stones",
        EndReason::Line => "line",
        EndReason::Blocked => "blocked",
        EndReason::FullBoard => "full_board",
    };
    let winner = match over.outcome {
        Outcome::Loss(c) => Some(color_word(c.other())),
        Outcome::Draw => None,
    };
    Some(GameOverJson { reason, winner, why: over.why() })
}

/// One legal move and its value for the mover.
#[derive(Debug, Serialize)]
pub struct MoveJson {
    /// docs/rules.md notation: `d6`, `a1xd7`, `d6-d5`, `d6-d5xb4`.
    pub notation: String,
    /// The point the stone leaves, `null` for a placement.
    pub from: Option<&'static str>,
    /// The point it arrives at.
    pub to: &'static str,
    /// The opponent's stones it removes (empty unless it closes a mill).
    pub removes: Vec<&'static str>,
    /// The position after it, our notation.
    pub position: String,
    /// The position after it as a Sanmill FEN (24-point boards only).
    pub fen: Option<String>,
    /// `win`, `draw` or `loss` for the mover; `unknown` when the table of
    /// the position after it is missing (the rest of the answer stands).
    pub category: &'static str,
    /// Plies to the end of the game counted from before the move (the move
    /// is ply 1), `null` for a draw or an unknown value.
    pub dtm: Option<u16>,
    /// Malom's rank of a draw for the mover (Malom's files only).
    pub draw_rank: Option<i32>,
    /// How many of the opponent's replies to this move are mistakes for
    /// them by category ([`Source::traps`]); `null` when a table a reply
    /// needs is missing. Given in the position answer only (absent from
    /// the line's plies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traps: Option<Option<u32>>,
}

/// `mv` from `pos` as JSON, with its value for the mover, or with
/// `category: "unknown"` when `eval` is `None` (its table is missing).
fn move_json(rules: &RuleSet, pos: &Position, mv: Move, eval: Option<Eval>) -> MoveJson {
    let board = rules.board();
    let after = pos.play_unchecked(mv);
    MoveJson {
        notation: mv.notation(board),
        from: mv.from.map(|p| board.point_name(p)),
        to: board.point_name(mv.to),
        removes: Points(mv.removals()).map(|p| board.point_name(p)).collect(),
        position: after.to_text(board),
        fen: after.to_fen(rules).ok(),
        category: eval.map_or(UNKNOWN, |e| e.category()),
        dtm: eval.and_then(|e| e.dtm()),
        draw_rank: eval.and_then(|e| e.draw_rank),
        traps: None,
    }
}

/// The category of a move whose table is missing.
pub const UNKNOWN: &str = "unknown";

/// Every legal move of `pos`, each valued on its own: for a position some
/// of whose moves lead to a missing table (as lichess's tablebase answers
/// a position with a move it cannot value). Known moves best first (as
/// [`Source::analyze`] orders them, without Malom's draw ranks), then the
/// unknown ones by notation.
///
/// # Errors
/// Any look-up error other than a missing table.
fn moves_one_by_one(source: &Source, pos: &Position) -> Result<Vec<(Move, Option<Eval>)>, LookupError> {
    let rules = source.rules();
    let board = rules.board();
    let mut known = Vec::new();
    let mut unknown = Vec::new();
    for mv in pos.legal_moves(rules) {
        match source.evaluate(&pos.play_unchecked(mv)) {
            Ok(e) => known.push((mv, e.back())),
            Err(LookupError::Missing { .. }) => unknown.push(mv),
            Err(e) => return Err(e),
        }
    }
    known.sort_by(|a, b| Eval::best_first(&a.1, &b.1).then_with(|| a.0.notation(board).cmp(&b.0.notation(board))));
    unknown.sort_by_key(|mv| mv.notation(board));
    Ok(known.into_iter().map(|(mv, e)| (mv, Some(e))).chain(unknown.into_iter().map(|mv| (mv, None))).collect())
}

/// The answer to `GET /api/{rules}?position=...`.
#[derive(Debug, Serialize)]
pub struct PositionJson {
    /// The rule set.
    pub rules: String,
    /// `morris` (our tables) or `malom` (Malom's files).
    pub source: &'static str,
    /// The position in our notation (points sorted).
    pub position: String,
    /// The position as a Sanmill FEN (24-point boards only, else `null`).
    pub fen: Option<String>,
    /// `white` or `black`.
    pub side_to_move: &'static str,
    /// `placement` (stones in hand) or `sliding` (both hands empty).
    pub phase: &'static str,
    /// Whether the side to move may fly (the rule set lets a player with its stones fly).
    pub flying: bool,
    /// Stones on the board and in hand.
    pub stones: BothStones,
    /// The sector, from the side to move's view (`w-b` or `w-b-wh-bh`).
    pub sector: String,
    /// `win`, `draw` or `loss` for the side to move.
    pub category: &'static str,
    /// Plies to the end of the game under perfect play, `null` for a draw.
    pub dtm: Option<u16>,
    /// Malom's rank of a draw for the side to move (Malom's files only;
    /// 0 with equal stones, higher is better), else `null`.
    pub draw_rank: Option<i32>,
    /// How the game ended, `null` while it goes on.
    pub game_over: Option<GameOverJson>,
    /// Whether the position can arise in a game from the start by legal
    /// play (with either colour to move): from the bitmaps of `morris
    /// reach`, `null` where there are none.
    pub reachable: Option<bool>,
    /// Every legal move, best first: shortest win, draws (Malom: by rank),
    /// longest loss; each with its `traps`.
    pub moves: Vec<MoveJson>,
}

/// Everything about `pos` from `source` (runs the look-ups: call it on a
/// blocking thread).
///
/// # Errors
/// See [`LookupError`].
pub fn describe(source: Source, pos: &Position) -> Result<PositionJson, LookupError> {
    let rules = source.rules();
    let board = rules.board();
    let eval = source.evaluate(pos)?;
    let moves = match source.analyze(pos) {
        Ok(moves) => moves.into_iter().map(|(mv, e)| (mv, Some(e))).collect(),
        Err(LookupError::Missing { .. }) => moves_one_by_one(&source, pos)?,
        Err(e) => return Err(e),
    };
    let stones = |set: Bitboard, hand: u8| StonesJson { board: set.count_ones(), hand };
    Ok(PositionJson {
        rules: rules.name().to_string(),
        source: source.kind(),
        position: pos.to_text(board),
        fen: pos.to_fen(rules).ok(),
        side_to_move: color_word(pos.side_to_move()),
        phase: if pos.white_in_hand() + pos.black_in_hand() > 0 { "placement" } else { "sliding" },
        flying: rules.flies(pos.us().count_ones() + pos.us_in_hand() as u32),
        stones: BothStones {
            white: stones(pos.white(), pos.white_in_hand()),
            black: stones(pos.black(), pos.black_in_hand()),
        },
        sector: pos.sector().to_string(),
        category: eval.category(),
        dtm: eval.dtm(),
        draw_rank: eval.draw_rank,
        game_over: game_over(rules, pos),
        reachable: source.reachable(pos),
        moves: moves
            .into_iter()
            .map(|(mv, e)| {
                let traps = match e {
                    Some(_) => source.traps(&pos.play_unchecked(mv))?,
                    None => None,
                };
                Ok(MoveJson { traps: Some(traps), ..move_json(rules, pos, mv, e) })
            })
            .collect::<Result<_, LookupError>>()?,
    })
}

async fn position(
    State(catalog): State<Arc<Catalog>>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<PositionJson>, ApiError> {
    let served = served(&catalog, &name)?;
    let pairs = parse_query(raw.as_deref(), &["position", "fen"])?;
    let pos = position_param(&pairs, served.rules())?;
    let source = served.source.clone();
    Ok(Json(blocking(&catalog, move || Ok(describe(source, &pos)?)).await?))
}

/// One ply of a principal line.
#[derive(Debug, Serialize)]
pub struct PlyJson {
    /// 1 for the first ply of the line.
    pub ply: usize,
    /// The move number as records write it: `5.` or `5...`.
    pub number: String,
    /// `white` or `black`: who moves.
    pub side: &'static str,
    /// The move.
    #[serde(flatten)]
    pub mv: MoveJson,
}

/// The answer to `GET /api/{rules}/line?position=...`.
#[derive(Debug, Serialize)]
pub struct LineJson {
    /// The rule set.
    pub rules: String,
    /// The start of the line, our notation.
    pub position: String,
    /// Its FEN (24-point boards only).
    pub fen: Option<String>,
    /// Its value for the side to move.
    pub category: &'static str,
    /// Its DTM, `null` for a draw.
    pub dtm: Option<u16>,
    /// Malom's draw rank (Malom's files only).
    pub draw_rank: Option<i32>,
    /// Best moves for both sides in turn (each with its value for its
    /// mover): to the end of a won or lost game, or `plies` of a draw.
    pub line: Vec<PlyJson>,
    /// The line as a game record, `1. d6 d2 2. ...`.
    pub record: String,
    /// How the game ends at the end of the line, `null` when the line is
    /// cut (a draw, or `plies` reached).
    pub game_over: Option<GameOverJson>,
}

/// The principal line from `pos`, at most `plies` plies (default: the DTM,
/// or [`DRAW_LINE_PLIES`] of a draw).
///
/// # Errors
/// See [`LookupError`].
pub fn line_of(source: Source, pos: &Position, plies: Option<usize>) -> Result<LineJson, LookupError> {
    let rules = source.rules();
    let board = rules.board();
    let eval = source.evaluate(pos)?;
    let plies = plies.unwrap_or(eval.dtm().map_or(DRAW_LINE_PLIES, usize::from));
    let line = source.line(pos, plies.min(MAX_LINE_PLIES))?;
    let mut current = *pos;
    let mut out = Vec::new();
    let mut record = Vec::new();
    for (i, (mv, e)) in line.into_iter().enumerate() {
        let number = morris_db::record::MoveNumber::of_ply(i as u32 + 1, pos.side_to_move());
        let j = move_json(rules, &current, mv, Some(e));
        record.push(match (number.color, i) {
            (Color::White, _) | (Color::Black, 0) => format!("{number} {}", j.notation),
            (Color::Black, _) => j.notation.clone(),
        });
        out.push(PlyJson { ply: i + 1, number: number.to_string(), side: color_word(current.side_to_move()), mv: j });
        current = current.play_unchecked(mv);
    }
    Ok(LineJson {
        rules: rules.name().to_string(),
        position: pos.to_text(board),
        fen: pos.to_fen(rules).ok(),
        category: eval.category(),
        dtm: eval.dtm(),
        draw_rank: eval.draw_rank,
        line: out,
        record: record.join(" "),
        game_over: game_over(rules, &current),
    })
}

async fn line(
    State(catalog): State<Arc<Catalog>>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<LineJson>, ApiError> {
    let served = served(&catalog, &name)?;
    let pairs = parse_query(raw.as_deref(), &["position", "fen", "plies"])?;
    let pos = position_param(&pairs, served.rules())?;
    let plies = match param(&pairs, "plies") {
        None => None,
        Some(t) => match t.parse::<usize>() {
            Ok(n) if (1..=MAX_LINE_PLIES).contains(&n) => Some(n),
            _ => {
                return Err(ApiError::bad_parameter(format!(
                    "`plies` must be a number from 1 to {MAX_LINE_PLIES}, not `{}`",
                    truncate(t, 20)
                )))
            }
        },
    };
    let source = served.source.clone();
    Ok(Json(blocking(&catalog, move || Ok(line_of(source, &pos, plies)?)).await?))
}

async fn review(
    State(catalog): State<Arc<Catalog>>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
    body: Result<String, StringRejection>,
) -> Result<Json<ReviewJson>, ApiError> {
    let served = served(&catalog, &name)?;
    let pairs = parse_query(raw.as_deref(), &["position", "fen"])?;
    let start = if pairs.is_empty() { None } else { Some(position_param(&pairs, served.rules())?) };
    let text = body.map_err(|e| {
        let status = e.status();
        ApiError::new(
            status,
            if status == StatusCode::PAYLOAD_TOO_LARGE { "too_long" } else { "bad_parameter" },
            e.body_text(),
        )
    })?;
    let source = served.source.clone();
    let review = blocking(&catalog, move || review_record(source, start, &text).map_err(ApiError::from)).await?;
    if let Some(e) = &review.error {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_record", e.clone()));
    }
    Ok(Json(review))
}

/// A point of a board with its place on a grid (files `a`.. are x = 0..,
/// ranks `1`.. are y = 0.., y growing upwards).
#[derive(Debug, Serialize)]
pub struct PointJson {
    /// Its name.
    pub name: &'static str,
    /// Column.
    pub x: u32,
    /// Row, from the bottom.
    pub y: u32,
}

/// A board, for drawing.
#[derive(Debug, Serialize)]
pub struct BoardJson {
    /// E.g. `24-point board`.
    pub name: &'static str,
    /// Every point, in the board's order.
    pub points: Vec<PointJson>,
    /// Every pair of adjacent points (draw a segment for each).
    pub edges: Vec<[&'static str; 2]>,
    /// Every mill (three points).
    pub mills: Vec<Vec<&'static str>>,
}

/// The board's points, adjacency and mills, with grid coordinates read
/// from the point names.
pub fn board_json(board: &Board) -> BoardJson {
    let points = board
        .point_names()
        .iter()
        .map(|&name| {
            let mut c = name.chars();
            let x = c.next().map_or(0, |f| (f as u32).saturating_sub('a' as u32));
            let y = c.as_str().parse::<u32>().map_or(0, |r| r.saturating_sub(1));
            PointJson { name, x, y }
        })
        .collect();
    let mut edges = Vec::new();
    for p in 0..board.len() as u8 {
        for q in Points(board.adjacent(p)) {
            if p < q {
                edges.push([board.point_name(p), board.point_name(q)]);
            }
        }
    }
    let mills = board.mills().iter().map(|&m| Points(m).map(|p| board.point_name(p)).collect()).collect();
    BoardJson { name: board.name(), points, edges, mills }
}

/// Which phases a database covers.
#[derive(Debug, Serialize)]
pub struct PhasesJson {
    /// Positions with both hands empty.
    pub sliding: bool,
    /// Positions with stones in hand.
    pub placement: bool,
}

/// One rule set served.
#[derive(Debug, Serialize)]
pub struct RulesJson {
    /// The rule set, as in `/api/{rules}`.
    pub name: String,
    /// Its parameters in words.
    pub summary: String,
    /// `morris` or `malom`.
    pub source: &'static str,
    /// Stones per player.
    pub stones: u8,
    /// Whether a player ever flies (with 3 stones, with 3 or 4, or always).
    pub flying: bool,
    /// Three Men's Morris: a line of three wins.
    pub line_wins: bool,
    /// Lasker Morris: move instead of placing while stones are in hand.
    pub lasker: bool,
    /// The start position, our notation.
    pub start: String,
    /// A position the tables cover, to show first: the start when they
    /// cover the placement phase, else one of the smallest sliding sector
    /// present.
    pub example: String,
    /// The board.
    pub board: BoardJson,
    /// The phases the tables cover.
    pub phases: PhasesJson,
    /// Tables (or Malom files) in the directory.
    pub sectors: usize,
}

/// The answer to `GET /api/rules`.
#[derive(Debug, Serialize)]
pub struct RulesListJson {
    /// Every rule set served.
    pub rules: Vec<RulesJson>,
}

/// A position of `served`'s tables to show first (see [`RulesJson::example`]).
pub fn example(served: &Served) -> Position {
    let rules = served.rules();
    let start = Position::start(rules);
    if served.sectors.is_empty() || served.sectors.contains(&start.sector()) {
        return start;
    }
    let Some(s) = served.sectors.iter().filter(|s| s.is_sliding()).min_by_key(|s| (s.w + s.b, s.w, s.b)) else {
        return start;
    };
    // White to move with `w` stones against `b`, spread over the board's
    // points; the first arrangement that is not over already.
    let n = rules.board().len() as u8;
    for shift in 0..n {
        let pick = |from: u8, k: u8| (0..k).fold(0 as Bitboard, |set, i| set | 1 << ((from + 2 * i + shift) % n));
        let white = pick(0, s.w);
        let black = pick(1, s.b);
        if white & black != 0 {
            continue;
        }
        let setup = Setup { white, black, side_to_move: Color::White, white_in_hand: 0, black_in_hand: 0 };
        if let Ok(pos) = setup.validate(rules) {
            if pos.outcome(rules).is_none() {
                return pos;
            }
        }
    }
    start
}

async fn rules_list(State(catalog): State<Arc<Catalog>>) -> Json<RulesListJson> {
    let rules = catalog
        .all()
        .iter()
        .map(|s| {
            let r = s.rules();
            RulesJson {
                name: r.name().to_string(),
                summary: r.summary(),
                source: s.source.kind(),
                stones: r.stones(),
                flying: r.flying(),
                line_wins: r.line_wins(),
                lasker: r.lasker(),
                start: Position::start(r).to_text(r.board()),
                example: example(s).to_text(r.board()),
                board: board_json(r.board()),
                phases: PhasesJson { sliding: s.covers_sliding(), placement: s.covers_placement() },
                sectors: s.sectors.len(),
            }
        })
        .collect();
    Json(RulesListJson { rules })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_directories_from_messages() {
        let m = "no table for sector 5-3 in /srv/db (looked for nine_5_3_0_0.mtb); solve it";
        let s = strip_dirs(m, "nine_5_3_0_0.mtb");
        assert!(!s.contains("/srv"), "{s}");
        assert!(s.contains("nine_5_3_0_0.mtb"), "{s}");
        let d = strip_dirs("/srv/db/nine_3_3_0_0.mtb: corrupt table: magic: x", "nine_3_3_0_0.mtb");
        assert_eq!(d, "nine_3_3_0_0.mtb: corrupt table: magic: x");
    }

    #[test]
    fn grid_coordinates_from_names() {
        let b = board_json(&Board::twenty_four(false));
        let a7 = b.points.iter().find(|p| p.name == "a7").unwrap();
        assert_eq!((a7.x, a7.y), (0, 6));
        assert_eq!(b.edges.len(), 32);
        assert_eq!(b.mills.len(), 16);
    }
}
