"""The nbgrader bridge: the course as an nbgrader assignment, its test cells, and batch grading into the gradebook."""
