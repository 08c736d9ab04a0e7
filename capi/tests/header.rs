//! `include/morris.h` is what cbindgen makes of `src/ffi.rs` today: fails
//! when the committed header is stale (run with `MORRIS_UPDATE_HEADER=1` to
//! rewrite it).

use std::path::Path;

#[test]
fn committed_header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/ffi.rs"))
        .generate()
        .expect("cbindgen reads src/ffi.rs")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8");
    let path = dir.join("include/morris.h");
    if std::env::var_os("MORRIS_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "capi/include/morris.h is not what cbindgen makes of src/ffi.rs: \
         run `MORRIS_UPDATE_HEADER=1 cargo test -p morris-capi --test header` and commit it"
    );
}
