"""Plumbing every layer shares: settings, typed errors and exit codes, progress, audit, deadlines,
workers, locks, the clock. Imports nothing else of it_eli."""
