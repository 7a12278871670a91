"""Grading a class where it lives: Gradescope's autograder, GitHub Classroom, a cluster."""
