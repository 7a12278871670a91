"""The sandbox: a zygote that imports torch once and forks one limited child per question (worker.py), and its parent side."""
