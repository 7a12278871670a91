"""The student build's oracle: results recorded by `release` from the instructor's kit, looked up by their arguments."""
