fn main() -> std::process::ExitCode {
    mcp_verdict::commands::main()
}
