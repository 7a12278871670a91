"""The course as data: course.yaml loaded into dataclasses, and the result model of a grading run."""
