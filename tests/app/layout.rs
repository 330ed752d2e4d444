//! The source layout: feature folders whose imports run one way, and no import cycle between
//! files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The features, lowest first: a file may import from its own folder and the folders before
/// it, never from one after it.
const ORDER: [&str; 8] = ["map", "input", "edit", "search", "units", "view", "ui", "dev"];

/// Every `src/` file as its module path (`units::lab`), with its text.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, files: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("src/ is readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix("src").expect("under src/").with_extension("");
                let name = relative.to_string_lossy().replace('/', "::").replace("::mod", "");
                files.insert(name, std::fs::read_to_string(&path).expect("a source file"));
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(Path::new("src"), &mut files);
    files
}

/// The modules `text` imports with `crate::…` paths (the longest path that is a module).
fn imports(text: &str, modules: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        let path: String =
            rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        if let Some(module) =
            (1..=parts.len()).rev().map(|k| parts[..k].join("::")).find(|m| modules.contains_key(m))
        {
            found.insert(module);
        }
    }
    found
}

#[test]
fn feature_folders_import_one_way_and_no_file_imports_in_a_cycle() {
    let modules = modules();
    assert!(modules.contains_key("units::lab") && modules.contains_key("map::level"), "the folders exist");
    let rank = |module: &str| ORDER.iter().position(|f| module.split("::").next() == Some(f));
    let mut graph: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in &modules {
        let deps = imports(text, &modules);
        for dep in &deps {
            if let (Some(from), Some(to)) = (rank(module), rank(dep)) {
                assert!(to <= from, "{module} imports {dep}: features import only from the ones before them");
            }
            if rank(module).is_none() && !["lib", "main"].contains(&module.as_str()) {
                assert!(rank(dep).is_none(), "the shared file {module} must not import the feature {dep}");
            }
        }
        // A folder's mod.rs declares its files; that is not an import.
        let deps = deps.into_iter().filter(|d| !d.starts_with(&format!("{module}::"))).collect();
        graph.insert(module, deps);
    }
    graph.remove("lib");
    // Depth-first search for a back edge.
    fn visit<'a>(
        m: &'a str,
        graph: &'a BTreeMap<&str, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, bool>,
        path: &mut Vec<&'a str>,
    ) {
        match state.get(m) {
            Some(true) => panic!("import cycle: {} -> {m}", path.join(" -> ")),
            Some(false) => return,
            None => {}
        }
        state.insert(m, true);
        path.push(m);
        for dep in graph.get(m).into_iter().flatten() {
            visit(dep, graph, state, path);
        }
        path.pop();
        state.insert(m, false);
    }
    let mut state = BTreeMap::new();
    for module in graph.keys() {
        visit(module, &graph, &mut state, &mut Vec::new());
    }
}
