//! `morris_tb`: the Python face of `morris-probe` (built by maturin; see
//! docs/python.md). Positions are python-chess shaped ([`PyPosition`]); a
//! [`PyTablebase`] answers values, distances and moves, releasing the GIL
//! while it reads tables, and batch calls for training data.

use std::sync::{Arc, RwLock};

use morris_db::fen::is_fen;
use morris_db::{Color, Position, RuleSet, Sector, Value};
use morris_probe::{ProbeError, Tablebase};
use pyo3::exceptions::{PyFileNotFoundError, PyKeyError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

pyo3::create_exception!(
    morris_tb,
    MissingTableError,
    PyKeyError,
    "The table a position needs is not in the tablebase's directories. \
     Attributes: `sector` (e.g. '3-3'), `path` (the file looked for)."
);
pyo3::create_exception!(
    morris_tb,
    TablebaseError,
    pyo3::exceptions::PyException,
    "A table is damaged, of another rule set, or of a format version this library does not read."
);

/// The Python exception for a probe error.
fn py_err(e: ProbeError) -> PyErr {
    match &e {
        ProbeError::MissingTable { sector, path, .. } => Python::with_gil(|py| {
            let err = MissingTableError::new_err(e.to_string());
            let value = err.value(py);
            let _ = value.setattr("sector", sector.to_string());
            let _ = value.setattr("path", path.to_string_lossy().into_owned());
            err
        }),
        ProbeError::InvalidPosition(_) | ProbeError::Unreachable { .. } | ProbeError::Unsupported(_) => {
            PyValueError::new_err(e.to_string())
        }
        ProbeError::NoDatabase { .. } => PyFileNotFoundError::new_err(e.to_string()),
        _ => TablebaseError::new_err(e.to_string()),
    }
}

/// The rule set of a preset name, or a `ValueError` naming the presets.
fn rules_of(name: &str) -> PyResult<RuleSet> {
    RuleSet::preset(name).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Reads `text` (our notation or a Sanmill FEN) under `rules`.
fn parse(text: &str, rules: &RuleSet) -> Result<Position, String> {
    Position::read_for(text, rules).map(|(p, _)| p).map_err(|e| format!("position `{text}`: {e}"))
}

/// `(wdl, dtm)` of a value: -1/0/1 and signed plies (None for a draw).
fn wdl_dtm(v: Value) -> (i8, Option<i32>) {
    match v {
        Value::Win(n) => (1, Some(i32::from(n.get()))),
        Value::Loss(n) => (-1, Some(-i32::from(n.get()))),
        Value::Draw => (0, None),
    }
}

/// A position of one rule set; immutable (``push`` returns a new one).
#[pyclass(frozen, name = "Position", module = "morris_tb")]
#[derive(Clone)]
struct PyPosition {
    pos: Position,
    rules: Arc<RuleSet>,
}

#[pymethods]
impl PyPosition {
    /// Reads a position of the rule set ``rules`` (a preset name) in our
    /// notation (``"W:a4,a1,d3 B:a7,d1,c4 w"``, stones in hand optional:
    /// ``"W: B: w 3 3"``) or as a Sanmill FEN. Raises ``ValueError`` naming
    /// what is wrong.
    #[staticmethod]
    #[pyo3(signature = (fen, rules = "nine"))]
    fn from_fen(fen: &str, rules: &str) -> PyResult<PyPosition> {
        let rules = rules_of(rules)?;
        let pos = parse(fen, &rules).map_err(PyValueError::new_err)?;
        Ok(PyPosition { pos, rules: Arc::new(rules) })
    }

    /// The start position of the rule set ``rules``.
    #[staticmethod]
    #[pyo3(signature = (rules = "nine"))]
    fn start(rules: &str) -> PyResult<PyPosition> {
        let rules = rules_of(rules)?;
        Ok(PyPosition { pos: Position::start(&rules), rules: Arc::new(rules) })
    }

    /// The position as a Sanmill FEN where the rule set's board has one
    /// (the 24-point board), else in our notation (``text()``).
    fn fen(&self) -> String {
        self.pos.to_fen(&self.rules).unwrap_or_else(|_| self.text())
    }

    /// The position in our notation, as the command line writes it.
    fn text(&self) -> String {
        self.pos.to_text(self.rules.board())
    }

    /// The rule set's name.
    #[getter]
    fn rules(&self) -> &'static str {
        self.rules.preset_name()
    }

    /// ``"white"`` or ``"black"``.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        match self.pos.side_to_move() {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// The legal moves, written as the command line writes them (``b2``,
    /// ``a1-a4``, ``d2xd7``), in notation order; empty when the game is over.
    fn legal_moves(&self) -> Vec<String> {
        let board = self.rules.board();
        let mut v: Vec<String> = self.pos.legal_moves(&self.rules).into_iter().map(|m| m.notation(board)).collect();
        v.sort();
        v
    }

    /// The position after ``move`` (a string as ``legal_moves`` writes
    /// it). Raises ``ValueError`` for a move that is not legal here.
    fn push(&self, r#move: &str) -> PyResult<PyPosition> {
        let mv = self
            .pos
            .parse_move(&self.rules, r#move)
            .map_err(|e| PyValueError::new_err(format!("move `{move}`: {e}")))?;
        Ok(PyPosition { pos: self.pos.play_unchecked(mv), rules: self.rules.clone() })
    }

    /// Whether the game is over (the side to move has lost or cannot move,
    /// or the rule set's end applies).
    fn is_game_over(&self) -> bool {
        self.pos.game_over(&self.rules).is_some()
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __repr__(&self) -> String {
        format!("Position.from_fen({:?}, rules={:?})", self.text(), self.rules.preset_name())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .downcast::<PyPosition>()
            .map(|o| {
                let o = o.get();
                o.pos == self.pos && o.rules.name() == self.rules.name()
            })
            .unwrap_or(false)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.text().hash(&mut h);
        h.finish()
    }
}

/// An open tablebase: our DTM tables, our WDL files or Malom's files of one
/// rule set, from one or more directories. Thread-safe; the GIL is released
/// while tables are read. A context manager (``close`` on exit).
#[pyclass(frozen, name = "Tablebase", module = "morris_tb")]
struct PyTablebase {
    inner: RwLock<Option<Tablebase>>,
}

impl PyTablebase {
    /// A handle on the tables (a cheap clone), or an error once closed.
    fn tb(&self) -> PyResult<Tablebase> {
        self.inner
            .read()
            .map_err(|_| PyRuntimeError::new_err("tablebase lock poisoned"))?
            .clone()
            .ok_or_else(|| PyValueError::new_err("the tablebase is closed"))
    }

    /// The position `pos` (a `Position` of the tablebase's rule set, or a
    /// string in either notation).
    fn position(&self, tb: &Tablebase, pos: &Bound<'_, PyAny>) -> PyResult<Position> {
        if let Ok(p) = pos.downcast::<PyPosition>() {
            let p = p.get();
            if p.rules.name() != tb.rules().name() {
                return Err(PyValueError::new_err(format!(
                    "a position of rule set {} given to a tablebase of rule set {}",
                    p.rules.name(),
                    tb.rules().name()
                )));
            }
            return Ok(p.pos);
        }
        let text: String = pos.extract().map_err(|_| PyValueError::new_err("give a Position or a string"))?;
        parse(&text, tb.rules()).map_err(PyValueError::new_err)
    }

    /// Runs `f` on the tables and the position with the GIL released.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        f: impl FnOnce(&Tablebase, &Position) -> Result<T, ProbeError> + Send,
    ) -> PyResult<T> {
        let tb = self.tb()?;
        let pos = self.position(&tb, pos)?;
        py.allow_threads(|| f(&tb, &pos)).map_err(py_err)
    }
}

/// Turns a missing table into `None`.
fn or_none<T>(r: PyResult<T>, py: Python<'_>) -> PyResult<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_instance_of::<MissingTableError>(py) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Bytes as a numpy array of `dtype` (a copy, writable).
fn array<'py>(py: Python<'py>, bytes: &[u8], dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    let np = py.import("numpy")?;
    np.call_method1("frombuffer", (PyBytes::new(py, bytes), dtype))?.call_method0("copy")
}

#[pymethods]
impl PyTablebase {
    /// The rule set's name.
    #[getter]
    fn rules(&self) -> PyResult<&'static str> {
        Ok(self.tb()?.rules().preset_name())
    }

    /// Adds the tables of ``path`` (asked after those already open). Raises
    /// ``FileNotFoundError`` when it is not a directory.
    fn add_directory(&self, path: std::path::PathBuf) -> PyResult<()> {
        let mut guard = self.inner.write().map_err(|_| PyRuntimeError::new_err("tablebase lock poisoned"))?;
        let tb = guard.as_mut().ok_or_else(|| PyValueError::new_err("the tablebase is closed"))?;
        tb.add_directory(path).map_err(py_err)
    }

    /// Win (1), draw (0) or loss (-1) for the side to move of ``pos`` (a
    /// ``Position`` or a string). Raises ``MissingTableError`` when a table
    /// is missing, ``ValueError`` for a bad position.
    fn probe_wdl(&self, py: Python<'_>, pos: &Bound<'_, PyAny>) -> PyResult<i8> {
        self.with(py, pos, |tb, p| tb.wdl(p).map(|w| w.signum() as i8))
    }

    /// Plies to the end of the game under perfect play for the side to move
    /// of ``pos``, signed (positive for a win, negative for a loss), or
    /// ``None`` for a draw. Raises as ``probe_wdl``.
    fn probe_dtm(&self, py: Python<'_>, pos: &Bound<'_, PyAny>) -> PyResult<Option<i32>> {
        self.with(py, pos, |tb, p| tb.value(p).map(|v| wdl_dtm(v).1))
    }

    /// ``probe_wdl``, or ``None`` when a table is missing.
    fn get_wdl(&self, py: Python<'_>, pos: &Bound<'_, PyAny>) -> PyResult<Option<i8>> {
        or_none(self.probe_wdl(py, pos), py)
    }

    /// ``probe_dtm``, or ``None`` when a table is missing (and for a draw).
    fn get_dtm(&self, py: Python<'_>, pos: &Bound<'_, PyAny>) -> PyResult<Option<i32>> {
        Ok(or_none(self.probe_dtm(py, pos), py)?.flatten())
    }

    /// Every legal move of ``pos`` as ``(move, wdl, dtm)`` for the mover,
    /// best first (shortest win, draws, longest loss; ties in notation
    /// order), as ``morris analyze`` lists them; ``dtm`` is ``None`` for a
    /// draw. Empty when the game is over.
    fn moves(&self, py: Python<'_>, pos: &Bound<'_, PyAny>) -> PyResult<Vec<(String, i8, Option<i32>)>> {
        self.with(py, pos, |tb, p| {
            let board = tb.rules().board();
            Ok(tb
                .analyze(p)?
                .into_iter()
                .map(|(mv, v)| {
                    let (w, d) = wdl_dtm(v);
                    (mv.notation(board), w, d)
                })
                .collect())
        })
    }

    /// A best move of ``pos`` (as ``morris bestmove`` prints it), or
    /// ``None`` when the game is over.
    fn best_move(&self, py: Python<'_>, pos: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        self.with(py, pos, |tb, p| Ok(tb.best_move(p)?.map(|(mv, _)| mv.notation(tb.rules().board()))))
    }

    /// Win/draw/loss of many positions (strings in either notation) in one
    /// call, without the GIL: a list of -1/0/1, or with ``as_numpy=True`` a
    /// numpy ``int8`` array. Raises on the first bad position or missing
    /// table (naming it).
    #[pyo3(signature = (fens, as_numpy = false))]
    fn probe_wdl_many<'py>(&self, py: Python<'py>, fens: Vec<String>, as_numpy: bool) -> PyResult<Bound<'py, PyAny>> {
        let tb = self.tb()?;
        let values: Vec<i8> = py.allow_threads(|| {
            // Probed in batches; the first error in the list's order is raised.
            let items = fens.iter().map(|f| parse(f, tb.rules()).map_err(PyValueError::new_err));
            let values = tb.wdl_of_list(items, |_, e| py_err(e))?;
            Ok::<_, PyErr>(values.into_iter().map(|w| w.signum() as i8).collect())
        })?;
        if as_numpy {
            let bytes: Vec<u8> = values.iter().map(|&v| v as u8).collect();
            array(py, &bytes, "int8")
        } else {
            Ok(values.into_pyobject(py)?.into_any())
        }
    }

    /// ``n`` positions of ``sector`` (``"3-3"`` sliding, or ``"w-b-wh-bh"``
    /// with stones in hand, from the side to move's view) drawn uniformly
    /// and reproducibly for ``seed``, with their values (as ``morris
    /// sample``). A list of ``(position text, wdl, dtm)``; with
    /// ``as_numpy=True`` a dict of numpy arrays: ``white``, ``black``
    /// (``uint32`` bit sets, bit i = the rule set's point i),
    /// ``white_in_hand``, ``black_in_hand`` (``uint8``), ``side_to_move``
    /// (``int8``: 0 white, 1 black), ``wdl`` (``int8``), ``dtm`` (``int32``,
    /// 0 for a draw), and ``positions`` (a list of texts).
    #[pyo3(signature = (sector, n, seed = 0, as_numpy = false))]
    fn sample<'py>(
        &self,
        py: Python<'py>,
        sector: &str,
        n: usize,
        seed: u64,
        as_numpy: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let tb = self.tb()?;
        let sector = Sector::parse(sector)
            .ok_or_else(|| PyValueError::new_err(format!("sector `{sector}`: write it as `3-3` or `4-3-2-3`")))?;
        let drawn = py.allow_threads(|| tb.sample(sector, n, seed)).map_err(py_err)?;
        let board = tb.rules().board();
        let texts: Vec<String> = drawn.iter().map(|s| s.position.to_text(board)).collect();
        if !as_numpy {
            let rows: Vec<(String, i8, Option<i32>)> = drawn
                .iter()
                .zip(texts)
                .map(|(s, t)| {
                    let (w, d) = wdl_dtm(s.value);
                    (t, w, d)
                })
                .collect();
            return Ok(rows.into_pyobject(py)?.into_any());
        }
        let d = PyDict::new(py);
        let u32s =
            |f: &dyn Fn(&Position) -> u32| drawn.iter().flat_map(|s| f(&s.position).to_ne_bytes()).collect::<Vec<u8>>();
        let u8s = |f: &dyn Fn(&Position) -> u8| drawn.iter().map(|s| f(&s.position)).collect::<Vec<u8>>();
        d.set_item("white", array(py, &u32s(&|p| p.white()), "uint32")?)?;
        d.set_item("black", array(py, &u32s(&|p| p.black()), "uint32")?)?;
        d.set_item("white_in_hand", array(py, &u8s(&|p| p.white_in_hand()), "uint8")?)?;
        d.set_item("black_in_hand", array(py, &u8s(&|p| p.black_in_hand()), "uint8")?)?;
        d.set_item("side_to_move", array(py, &u8s(&|p| u8::from(p.side_to_move() == Color::Black)), "int8")?)?;
        let wdl: Vec<u8> = drawn.iter().map(|s| wdl_dtm(s.value).0 as u8).collect();
        d.set_item("wdl", array(py, &wdl, "int8")?)?;
        let dtm: Vec<u8> = drawn.iter().flat_map(|s| wdl_dtm(s.value).1.unwrap_or(0).to_ne_bytes()).collect();
        d.set_item("dtm", array(py, &dtm, "int32")?)?;
        d.set_item("positions", texts)?;
        Ok(d.into_any())
    }

    /// Closes the tablebase (its tables are unmapped once no call is using
    /// them); later calls raise ``ValueError``.
    fn close(&self) -> PyResult<()> {
        *self.inner.write().map_err(|_| PyRuntimeError::new_err("tablebase lock poisoned"))? = None;
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (_exc_type = None, _exc = None, _tb = None))]
    fn __exit__(&self, _exc_type: Option<PyObject>, _exc: Option<PyObject>, _tb: Option<PyObject>) -> PyResult<bool> {
        self.close()?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        match self.tb() {
            Ok(tb) => format!("<morris_tb.Tablebase rules={:?}>", tb.rules().preset_name()),
            Err(_) => "<morris_tb.Tablebase closed>".to_string(),
        }
    }
}

/// Opens the tables in the directory ``path``: of the rule set ``rules``
/// (a preset name such as ``"three"`` or ``"nine"``), or, when ``None``, of
/// the one rule set whose files the directory holds. Our DTM tables, our
/// WDL files and Malom's files are all read. Raises ``FileNotFoundError``
/// for a directory that is not there (or holds no tables and no rule set
/// is named), ``ValueError`` for an unknown rule set.
#[pyfunction]
#[pyo3(signature = (path, rules = None))]
fn open_tablebase(py: Python<'_>, path: std::path::PathBuf, rules: Option<String>) -> PyResult<PyTablebase> {
    let tb = py.allow_threads(|| Tablebase::open(&path, rules.as_deref())).map_err(py_err)?;
    Ok(PyTablebase { inner: RwLock::new(Some(tb)) })
}

/// ``open_tablebase(path, rules).sample(sector, n, seed, as_numpy)`` in one
/// call: ``n`` random positions of ``sector`` with their values, drawn
/// uniformly and reproducibly for ``seed`` (see ``Tablebase.sample``).
#[pyfunction]
#[pyo3(signature = (path, rules, sector, n, seed = 0, as_numpy = false))]
fn sample<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    rules: Option<String>,
    sector: &str,
    n: usize,
    seed: u64,
    as_numpy: bool,
) -> PyResult<Bound<'py, PyAny>> {
    open_tablebase(py, path, rules)?.sample(py, sector, n, seed, as_numpy)
}

/// Whether ``text`` is written as a Sanmill FEN (it has a ``/``).
#[pyfunction]
fn looks_like_fen(text: &str) -> bool {
    is_fen(text)
}

/// Perfect-play queries for Nine Men's Morris and relatives from morris
/// tables (see docs/python.md).
#[pymodule]
fn morris_tb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPosition>()?;
    m.add_class::<PyTablebase>()?;
    m.add_function(wrap_pyfunction!(open_tablebase, m)?)?;
    m.add_function(wrap_pyfunction!(looks_like_fen, m)?)?;
    m.add_function(wrap_pyfunction!(sample, m)?)?;
    m.add("MissingTableError", m.py().get_type::<MissingTableError>())?;
    m.add("TablebaseError", m.py().get_type::<TablebaseError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
