//! `aep-host`: see `aep-host --help`.

fn main() -> std::process::ExitCode {
    aep_host::cli::main()
}
