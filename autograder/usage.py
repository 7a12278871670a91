"""The one error of a bad command line or class folder, shared by the commands (a leaf: it imports nothing)."""


class UsageError(Exception):
    """Bad input from the user (a command line, a class folder): one line to the user, exit status 2."""
