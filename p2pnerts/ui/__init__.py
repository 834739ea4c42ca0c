"""The player's front end; for now a plain-text view of the table."""
