fn main() -> std::process::ExitCode {
    mcp_verdict::cli::main()
}
