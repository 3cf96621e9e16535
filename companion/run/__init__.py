"""The composition root: start-up, the running table, serving, the console, the doctor, the CLI."""
