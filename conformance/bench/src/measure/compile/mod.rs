//! Build cost: `cargo build` of the `aep-extension` template's generated extension
//! (starting point `tools-and-provider`, rendered with cargo-generate) against the same
//! extension written by hand with axum and rmcp (`conformance/bench/compile/handwritten`),
//! in one run, on this machine.
//!
//! - Cold: a fresh `CARGO_TARGET_DIR` for every build, plain `cargo build` (debug, what a
//!   user types) with `--timings` on both, the two alternating over the rounds. Cargo's
//!   timing report gives the SDK's own crates' share of the build.
//! - Rebuild: after the cold builds, the same string literal in the body of the
//!   `text.upper` tool is changed in each project and `cargo build` runs again,
//!   alternating, a few rounds.
//!
//! Both projects build with the workspace's `Cargo.lock` (copied in; cargo drops what a
//! project does not use), so they resolve the same versions, and the SDK is a snapshot of
//! this checkout's aep-sdk crates taken when the run starts (edits made to the checkout
//! during the run do not reach a round). Every build holds the workspace's build lock
//! (`target/.build-lock`, the file `flock` takes), taken before the clock starts.

mod features;
mod timings;

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use timings::Unit;

use crate::report::Row;
use crate::stats::Summary;

/// The SDK's own crates, whose share of the SDK's build is reported.
const SDK_CRATES: [&str; 3] = ["aep-sdk", "aep-sdk-macros", "aep-sdk-internals"];

/// The string literal in `text.upper`'s body that the rebuilds change, in both projects.
const EDITED: &str = "\"give me some text\"";

/// What the template is rendered with; the hand-written extension declares the same.
const EXTENSION_ID: &str = "bench.compile";
const DISPLAY_NAME: &str = "Compile bench";

/// What `aep-bench compile` is asked for.
pub struct Options {
    /// Cold builds of each variant.
    pub rounds: usize,
    /// Rebuilds of each variant after one tool's body changed.
    pub rebuilds: usize,
    /// The lock file every build holds.
    pub lock: PathBuf,
    /// Where the projects and their target directories go (emptied first).
    pub work: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Variant {
    Sdk,
    Baseline,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Sdk => "sdk",
            Variant::Baseline => "handwritten",
        }
    }
}

/// One project to build.
struct Project {
    variant: Variant,
    dir: PathBuf,
    target: PathBuf,
    /// `src/lib.rs` as rendered or copied, before any edit.
    lib: String,
}

/// One cold build: wall seconds and cargo's units.
struct Cold {
    wall: f64,
    units: Vec<Unit>,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the measurement; an error says what was missing or what failed.
pub fn rows(options: &Options) -> Result<Vec<Row>, String> {
    if options.rounds == 0 || options.rebuilds == 0 {
        return Err("--rounds and --rebuilds must be at least 1".into());
    }
    if !cargo_generate_available() {
        return Err(
            "cargo-generate is not installed (`cargo generate` is how the template is \
                    rendered, as a user does): `cargo install cargo-generate@0.23.7 --locked`"
                .into(),
        );
    }
    let lock = BuildLock(options.lock.clone());
    let work = &options.work;
    if work.exists() {
        std::fs::remove_dir_all(work).map_err(|e| format!("empty {}: {e}", work.display()))?;
    }
    std::fs::create_dir_all(work).map_err(|e| format!("create {}: {e}", work.display()))?;

    let snapshot = work.join("aep-sdk-snapshot");
    snapshot_sdk(&snapshot)?;
    let sdk = render_sdk(work, &snapshot)?;
    let baseline = copy_baseline(work)?;
    for project in [&sdk, &baseline] {
        // Untimed: every crate on disk before the clock runs.
        run(cargo(project).arg("fetch"), "cargo fetch")?;
    }
    let feature_note = compare_features(&sdk, &baseline)?;

    let (mut sdk_cold, mut base_cold) = (Vec::new(), Vec::new());
    for round in 0..options.rounds {
        for project in order(round, &sdk, &baseline) {
            let _ = std::fs::remove_dir_all(&project.target);
            let wall = build(project, &lock, true)?;
            let units = timings::read(&project.target)?;
            eprintln!(
                "  cold build {}/{}, {}: {wall:.1} s ({} units)",
                round + 1,
                options.rounds,
                project.variant.name(),
                units.len()
            );
            let cold = Cold { wall, units };
            match project.variant {
                Variant::Sdk => sdk_cold.push(cold),
                Variant::Baseline => base_cold.push(cold),
            }
        }
    }

    let (mut sdk_rebuild, mut base_rebuild) = (Vec::new(), Vec::new());
    for round in 0..options.rebuilds {
        for project in order(round, &sdk, &baseline) {
            edit_tool(project, round + 1)?;
            let wall = build(project, &lock, false)?;
            eprintln!(
                "  rebuild {}/{}, {}: {wall:.2} s",
                round + 1,
                options.rebuilds,
                project.variant.name()
            );
            match project.variant {
                Variant::Sdk => sdk_rebuild.push(wall),
                Variant::Baseline => base_rebuild.push(wall),
            }
        }
    }
    Ok(report(
        &sdk_cold,
        &base_cold,
        &sdk_rebuild,
        &base_rebuild,
        &feature_note,
    ))
}

/// SDK first in even rounds, the baseline first in odd ones.
fn order<'a>(round: usize, sdk: &'a Project, baseline: &'a Project) -> [&'a Project; 2] {
    if round.is_multiple_of(2) {
        [sdk, baseline]
    } else {
        [baseline, sdk]
    }
}

fn report(
    sdk: &[Cold],
    base: &[Cold],
    sdk_rebuild: &[f64],
    base_rebuild: &[f64],
    features: &str,
) -> Vec<Row> {
    let walls = |builds: &[Cold]| builds.iter().map(|b| b.wall).collect::<Vec<_>>();
    let unit_time = |builds: &[Cold]| {
        builds
            .iter()
            .map(|b| timings::total(&b.units.iter().collect::<Vec<_>>()))
            .collect::<Vec<_>>()
    };
    let units = |builds: &[Cold]| builds.last().map_or(0, |b| b.units.len());
    let mut rows = vec![
        Row::compare(
            "12. build: cold `cargo build`, wall time",
            "s",
            &walls(sdk),
            &walls(base),
        )
        .ratio_at_most(1.15)
        .note(format!(
            "debug, a fresh target dir each, one Cargo.lock; {} units vs {}; {features}",
            units(sdk),
            units(base)
        )),
        Row::compare(
            "12. build: cold `cargo build`, sum of unit times",
            "s",
            &unit_time(sdk),
            &unit_time(base),
        )
        .note("cargo --timings: CPU-ish time, what more cores would spread"),
        Row::compare(
            "12. build: rebuild after editing one tool's body, wall time",
            "s",
            sdk_rebuild,
            base_rebuild,
        )
        .ratio_at_most(1.2)
        .note("a string literal in `text.upper`'s body changed; incremental, as `cargo build` does"),
    ];

    // The SDK's own crates in each SDK build, and the crates the baseline never builds.
    let mut own_share = Vec::new();
    let mut own_wall_share = Vec::new();
    let mut extra_share = Vec::new();
    for (round, build) in sdk.iter().enumerate() {
        let all: Vec<&Unit> = build.units.iter().collect();
        let own: Vec<&Unit> = build
            .units
            .iter()
            .filter(|u| SDK_CRATES.contains(&u.name.as_str()))
            .collect();
        let total = timings::total(&all);
        own_share.push(100.0 * timings::total(&own) / total);
        own_wall_share.push(100.0 * timings::busy(&own) / timings::span(&build.units));
        let other = &base[round.min(base.len() - 1)].units;
        let extra: Vec<&Unit> = timings::only_in(&build.units, other)
            .into_iter()
            .filter(|u| !SDK_CRATES.contains(&u.name.as_str()) && u.name != "sdk-extension")
            .collect();
        extra_share.push(100.0 * timings::total(&extra) / total);
    }
    let median_build = median_index(&walls(sdk));
    let build = &sdk[median_build];
    let own: Vec<&Unit> = build
        .units
        .iter()
        .filter(|u| SDK_CRATES.contains(&u.name.as_str()))
        .collect();
    let per_crate = timings::by_crate(&own)
        .iter()
        .map(|(name, seconds)| format!("{name} {seconds:.1} s"))
        .collect::<Vec<_>>()
        .join(", ");
    let base_units = &base[median_build.min(base.len() - 1)].units;
    let extra: Vec<&Unit> = timings::only_in(&build.units, base_units)
        .into_iter()
        .filter(|u| !SDK_CRATES.contains(&u.name.as_str()) && u.name != "sdk-extension")
        .collect();
    let extra_crates = timings::by_crate(&extra);
    let top = extra_crates
        .iter()
        .take(5)
        .map(|(name, seconds)| format!("{name} {seconds:.1} s"))
        .collect::<Vec<_>>()
        .join(", ");
    rows.push(
        Row::single(
            "12. build: aep-sdk crates' share of the SDK's unit time",
            "%",
            &own_share,
        )
        .note(format!("{per_crate} (the median round's build)")),
    );
    rows.push(
        Row::single(
            "12. build: aep-sdk crates being compiled, share of its wall time",
            "%",
            &own_wall_share,
        )
        .note("time during which at least one of them was compiling, on cargo's clock"),
    );
    rows.push(
        Row::single(
            "12. build: crates only the SDK's build compiles, share of its unit time",
            "%",
            &extra_share,
        )
        .note(format!("{} crates; largest: {top}", extra_crates.len())),
    );
    rows
}

/// The index of the median sample (nearest rank, as [`Summary`] takes it).
fn median_index(samples: &[f64]) -> usize {
    let median = Summary::of(samples).median;
    samples.iter().position(|s| *s == median).unwrap_or(0)
}

/// The workspace's build lock, taken around every build.
struct BuildLock(PathBuf);

impl BuildLock {
    /// Blocks until the lock is ours; it is released when the file is dropped.
    fn hold(&self) -> Result<File, String> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.0)
            .map_err(|e| format!("open the build lock {}: {e}", self.0.display()))?;
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(TryLockError::WouldBlock) => eprintln!(
                "  waiting for the build lock {} (another build holds it; this run takes it itself \
                 around each build, so do not run it under `flock` on the same file)",
                self.0.display()
            ),
            Err(TryLockError::Error(e)) => return Err(format!("lock {}: {e}", self.0.display())),
        }
        file.lock()
            .map_err(|e| format!("lock {}: {e}", self.0.display()))?;
        Ok(file)
    }
}

/// `cargo` in the project's directory with its own target directory and none of the
/// environment that would change what a plain `cargo build` does (the `cargo run` that
/// started the bench, a wrapper such as sccache, extra flags).
fn cargo(project: &Project) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .current_dir(&project.dir)
        .env("CARGO_TARGET_DIR", &project.target)
        .stdin(Stdio::null());
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let drop = matches!(
            name.as_ref(),
            "RUSTFLAGS" | "RUSTDOCFLAGS" | "RUSTC_WRAPPER" | "RUSTC_WORKSPACE_WRAPPER" | "CARGO_INCREMENTAL"
        ) || name.starts_with("CARGO_BUILD_")
            || name.starts_with("CARGO_PROFILE_")
            || name.starts_with("CARGO_ENCODED_");
        if drop {
            command.env_remove(name.as_ref());
        }
    }
    command
}

/// Runs a command to completion; its output is shown only when it fails.
fn run(command: &mut Command, what: &str) -> Result<String, String> {
    let output = command.output().map_err(|e| format!("{what}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{what} failed ({})\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// One timed `cargo build` under the build lock; returns wall seconds.
fn build(project: &Project, lock: &BuildLock, timings: bool) -> Result<f64, String> {
    let mut command = cargo(project);
    command.arg("build");
    if timings {
        command.arg("--timings");
    }
    let _held = lock.hold()?;
    let start = Instant::now();
    run(&mut command, &format!("cargo build of {}", project.dir.display()))?;
    Ok(start.elapsed().as_secs_f64())
}

fn cargo_generate_available() -> bool {
    Command::new("cargo")
        .args(["generate", "--version"])
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Copies the crates a generated extension builds from this checkout (aep-sdk, its macros
/// and internals; the conformance runner its dev-dependency names) with the workspace's
/// manifest and lock, as they are now.
fn snapshot_sdk(dest: &Path) -> Result<(), String> {
    let root = workspace();
    for file in ["Cargo.toml", "Cargo.lock"] {
        copy_file(&root.join(file), &dest.join(file))?;
    }
    for dir in ["aep-sdk", "aep-sdk-macros", "conformance/runner"] {
        copy_tree(&root.join(dir), &dest.join(dir))?;
    }
    Ok(())
}

/// Renders the template with cargo-generate, as a user does, against the snapshot.
fn render_sdk(work: &Path, snapshot: &Path) -> Result<Project, String> {
    let template = workspace().join("templates/aep-extension");
    let mut command = Command::new("cargo");
    command
        .args(["generate", "--silent", "--vcs", "none", "--path"])
        .arg(&template)
        .args(["--name", "sdk-extension", "--destination"])
        .arg(work)
        .stdin(Stdio::null());
    for (key, value) in [
        ("extension_id", EXTENSION_ID),
        ("display_name", DISPLAY_NAME),
        ("starting_point", "tools-and-provider"),
    ] {
        command.arg("--define").arg(format!("{key}={value}"));
    }
    command
        .arg("--define")
        .arg(format!("aep_sdk_source={}", snapshot.display()));
    run(&mut command, "cargo generate")?;
    project(Variant::Sdk, work.join("sdk-extension"), work)
}

/// Copies the hand-written extension (sources and manifest) next to it.
fn copy_baseline(work: &Path) -> Result<Project, String> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("compile/handwritten");
    let dir = work.join("handwritten-extension");
    copy_file(&source.join("Cargo.toml"), &dir.join("Cargo.toml"))?;
    copy_tree(&source.join("src"), &dir.join("src"))?;
    project(Variant::Baseline, dir, work)
}

/// The workspace's `Cargo.lock` in the project, its target directory beside it.
fn project(variant: Variant, dir: PathBuf, work: &Path) -> Result<Project, String> {
    copy_file(&workspace().join("Cargo.lock"), &dir.join("Cargo.lock"))?;
    let lib_path = dir.join("src/lib.rs");
    let lib = std::fs::read_to_string(&lib_path).map_err(|e| format!("{}: {e}", lib_path.display()))?;
    if lib.matches(EDITED).count() != 1 {
        return Err(format!(
            "{} should hold {EDITED} once (the literal the rebuilds edit)",
            lib_path.display()
        ));
    }
    Ok(Project {
        variant,
        target: work.join(format!("target-{}", variant.name())),
        dir,
        lib,
    })
}

/// Changes the literal in `text.upper`'s body: a new text for every rebuild.
fn edit_tool(project: &Project, edit: usize) -> Result<(), String> {
    let edited = project
        .lib
        .replace(EDITED, &format!("\"give me some text (edit {edit})\""));
    let path = project.dir.join("src/lib.rs");
    std::fs::write(&path, edited).map_err(|e| format!("{}: {e}", path.display()))
}

/// Which crates both builds compile with different features: printed, and summed up for
/// the report.
fn compare_features(sdk: &Project, baseline: &Project) -> Result<String, String> {
    let tree = |project: &Project| {
        run(
            cargo(project).args(["tree", "-e", "normal,build", "--prefix", "none", "-f", "{p}|{f}"]),
            "cargo tree",
        )
        .map(|t| features::parse(&t))
    };
    let (shared, differences) = features::compare(&tree(sdk)?, &tree(baseline)?);
    if differences.is_empty() {
        return Ok(format!("the same features on all {shared} crates both build"));
    }
    eprintln!(
        "  features that differ on crates both builds compile (+ SDK only, - baseline only; the \
         SDK's come from the crates only it uses):"
    );
    for difference in &differences {
        eprintln!("    {difference}");
    }
    Ok(format!(
        "features differ on {} of the {shared} crates both build ({})",
        differences.len(),
        differences
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

fn copy_file(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("create {}: {e}", parent.display()))?;
    }
    std::fs::copy(from, to)
        .map(drop)
        .map_err(|e| format!("copy {} to {}: {e}", from.display(), to.display()))
}

/// Copies a directory's files, leaving out `target` directories.
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    let entries = std::fs::read_dir(from).map_err(|e| format!("read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("read {}: {e}", from.display()))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if kind.is_dir() {
            if entry.file_name() != "target" {
                copy_tree(&path, &to.join(entry.file_name()))?;
            }
        } else if kind.is_file() {
            copy_file(&path, &to.join(entry.file_name()))?;
        }
    }
    Ok(())
}
