"""The banks of known mistakes, one module per question (qNN.py, holding BANK): see autograder/engine/mistakes.py."""
