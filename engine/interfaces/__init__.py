"""The adapters at the edge: the command line, the MCP server and the launcher of `make run`.
Each one speaks to people or clients and calls the same services the pages use."""
