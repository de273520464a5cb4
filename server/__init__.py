"""Gin Rummy server: rules engine, computer opponents, match service, storage and transport."""
