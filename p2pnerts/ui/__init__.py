"""ui layer (see DESIGN.md); not built yet."""
