//! A faithful renderer for the subset of cargo-generate's template language that the
//! templates in this folder use, so their test runs without installing cargo-generate
//! (which needs a newer rustc than some machines have, and minutes to build).
//!
//! Supported: `{{ name }}` substitutions and `{% if %}` / `{% else %}` / `{% endif %}`
//! blocks whose condition is `name == "text"`, `name != "text"` or
//! `name contains "text"`. Names are the template's `[placeholders]` plus cargo-generate's
//! built-ins `project-name` and `crate_name`. Anything else is an error, so a template
//! that starts using a feature this renderer lacks fails its test instead of rendering
//! wrongly.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Why a template could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `cargo-generate.toml` is malformed.
    #[error("cargo-generate.toml: {0}")]
    Config(String),
    /// The template uses something this renderer does not know.
    #[error("{file}: {message}")]
    Syntax {
        /// The template file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A value is missing or not one of the placeholder's choices.
    #[error("placeholder '{0}': {1}")]
    Value(String, String),
}

#[derive(Debug, Deserialize)]
struct Config {
    #[serde(default)]
    template: TemplateSection,
    #[serde(default)]
    placeholders: BTreeMap<String, Placeholder>,
}

#[derive(Debug, Default, Deserialize)]
struct TemplateSection {
    #[serde(default)]
    ignore: Vec<String>,
}

/// One `[placeholders.NAME]` entry.
#[derive(Debug, Clone, Deserialize)]
pub struct Placeholder {
    /// Allowed values, when it is a choice.
    #[serde(default)]
    pub choices: Vec<String>,
    /// Default value.
    #[serde(default)]
    pub default: Option<String>,
}

/// A cargo-generate template folder.
#[derive(Debug)]
pub struct Template {
    dir: PathBuf,
    ignore: Vec<String>,
    /// Its placeholders by name.
    pub placeholders: BTreeMap<String, Placeholder>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RenderError + '_ {
    move |source| RenderError::Io {
        path: path.to_owned(),
        source,
    }
}

impl Template {
    /// Reads `dir/cargo-generate.toml`.
    pub fn load(dir: &Path) -> Result<Self, RenderError> {
        let path = dir.join("cargo-generate.toml");
        let text = fs::read_to_string(&path).map_err(io(&path))?;
        let config: Config = toml::from_str(&text).map_err(|e| RenderError::Config(e.to_string()))?;
        Ok(Self {
            dir: dir.to_owned(),
            ignore: config.template.ignore,
            placeholders: config.placeholders,
        })
    }

    /// Renders every file into `dest` with `values` (placeholders) and `project_name`.
    pub fn render(
        &self,
        project_name: &str,
        values: &BTreeMap<String, String>,
        dest: &Path,
    ) -> Result<(), RenderError> {
        let mut vars = BTreeMap::new();
        for (name, placeholder) in &self.placeholders {
            let value = values.get(name).cloned().or_else(|| placeholder.default.clone());
            let value =
                value.ok_or_else(|| RenderError::Value(name.clone(), "no value and no default".into()))?;
            if !placeholder.choices.is_empty() && !placeholder.choices.contains(&value) {
                return Err(RenderError::Value(
                    name.clone(),
                    format!("'{value}' is not one of {:?}", placeholder.choices),
                ));
            }
            vars.insert(name.clone(), value);
        }
        if let Some(unknown) = values.keys().find(|k| !self.placeholders.contains_key(*k)) {
            return Err(RenderError::Value(
                unknown.clone(),
                "the template has no such placeholder".into(),
            ));
        }
        vars.insert("project-name".into(), project_name.to_owned());
        vars.insert("crate_name".into(), project_name.replace('-', "_"));
        self.render_dir(&self.dir, dest, &vars)
    }

    fn render_dir(&self, from: &Path, to: &Path, vars: &BTreeMap<String, String>) -> Result<(), RenderError> {
        fs::create_dir_all(to).map_err(io(to))?;
        for entry in fs::read_dir(from).map_err(io(from))? {
            let entry = entry.map_err(io(from))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "cargo-generate.toml" || self.ignore.contains(&name) {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                self.render_dir(&path, &to.join(&name), vars)?;
            } else {
                let text = fs::read_to_string(&path).map_err(io(&path))?;
                let rendered = render_text(&text, vars).map_err(|message| RenderError::Syntax {
                    file: path.display().to_string(),
                    message,
                })?;
                let out = to.join(&name);
                fs::write(&out, rendered).map_err(io(&out))?;
            }
        }
        Ok(())
    }
}

/// Renders one file's text.
pub fn render_text(text: &str, vars: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    // One entry per open `if`: (this branch is taken, some branch was taken).
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let active = |stack: &[(bool, bool)]| stack.iter().all(|(on, _)| *on);
    let mut rest = text;
    while !rest.is_empty() {
        let next = [rest.find("{{"), rest.find("{%")].into_iter().flatten().min();
        let Some(start) = next else {
            if active(&stack) {
                out.push_str(rest);
            }
            break;
        };
        if active(&stack) {
            out.push_str(&rest[..start]);
        }
        let is_tag = rest[start..].starts_with("{%");
        let close = if is_tag { "%}" } else { "}}" };
        let end = rest[start..]
            .find(close)
            .ok_or_else(|| format!("unclosed '{}'", &rest[start..start + 2]))?
            + start;
        let inner = rest[start + 2..end].trim();
        rest = &rest[end + 2..];
        if !is_tag {
            let value = lookup(vars, inner)?;
            if active(&stack) {
                out.push_str(value);
            }
            continue;
        }
        let (word, condition) = inner.split_once(' ').unwrap_or((inner, ""));
        match word {
            "if" => {
                let holds = eval(condition.trim(), vars)?;
                stack.push((holds, holds));
            }
            "else" => {
                let top = stack.last_mut().ok_or("'else' without 'if'")?;
                *top = (!top.1, true);
            }
            "endif" => {
                stack.pop().ok_or("'endif' without 'if'")?;
            }
            other => return Err(format!("unsupported tag '{other}'")),
        }
    }
    if !stack.is_empty() {
        return Err("an 'if' is never closed".into());
    }
    Ok(out)
}

fn lookup<'a>(vars: &'a BTreeMap<String, String>, name: &str) -> Result<&'a str, String> {
    if name.contains('|') {
        return Err(format!("filters are not supported: '{name}'"));
    }
    vars.get(name)
        .map(String::as_str)
        .ok_or_else(|| format!("unknown placeholder '{name}'"))
}

fn eval(condition: &str, vars: &BTreeMap<String, String>) -> Result<bool, String> {
    for (op, test) in [
        ("==", (|a: &str, b: &str| a == b) as fn(&str, &str) -> bool),
        ("!=", |a, b| a != b),
        ("contains", |a, b| a.contains(b)),
    ] {
        if let Some((left, right)) = condition.split_once(&format!(" {op} ")) {
            let value = lookup(vars, left.trim())?;
            let literal = right.trim();
            let literal = literal
                .strip_prefix('"')
                .and_then(|l| l.strip_suffix('"'))
                .ok_or_else(|| format!("expected a quoted string in '{condition}'"))?;
            return Ok(test(value, literal));
        }
    }
    Err(format!("unsupported condition '{condition}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> BTreeMap<String, String> {
        BTreeMap::from([("a".into(), "x".into()), ("src".into(), "https://h/r".into())])
    }

    #[test]
    fn substitutes_and_branches() {
        let text = "{{a}}-{{ a }}{% if a == \"x\" %}yes{% else %}no{% endif %}{% if src contains \"://\" %}git{% endif %}";
        assert_eq!(render_text(text, &vars()).unwrap(), "x-xyesgit");
        let nested = "{% if a != \"x\" %}A{% if a == \"x\" %}B{% endif %}{% else %}C{% endif %}";
        assert_eq!(render_text(nested, &vars()).unwrap(), "C");
    }

    #[test]
    fn refuses_what_it_does_not_know() {
        assert!(
            render_text("{{ b }}", &vars())
                .unwrap_err()
                .contains("unknown placeholder")
        );
        assert!(
            render_text("{{ a | upcase }}", &vars())
                .unwrap_err()
                .contains("filters")
        );
        assert!(
            render_text("{% for x in y %}", &vars())
                .unwrap_err()
                .contains("unsupported tag")
        );
        assert!(
            render_text("{% if a %}", &vars())
                .unwrap_err()
                .contains("unsupported condition")
        );
        assert!(
            render_text("{% if a == \"x\" %}", &vars())
                .unwrap_err()
                .contains("never closed")
        );
    }
}
