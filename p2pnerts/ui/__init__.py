"""The player's front end (prompt_toolkit): not built yet; the commands print plain lines."""
