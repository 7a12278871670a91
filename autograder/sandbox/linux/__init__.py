"""The Linux backend: a zygote that imports torch once and forks one limited child per question (parent.py,
worker.py)."""
