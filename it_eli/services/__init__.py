"""Domain services: legislation, case law and verification as plain functions returning domain Structs."""
