# The spec's contacts.py (section 8.2), made to run: rows come back as dicts (sqlite3.Row), the
# table is made on first use, and `add` inserts one.
import json
import sqlite3
import sys

action = sys.argv[1]
conn = sqlite3.connect('contacts.db')
conn.row_factory = sqlite3.Row
conn.execute("CREATE TABLE IF NOT EXISTS contacts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL)")

if action == 'search':
    params = json.load(sys.stdin)
    query = params['query']
    cursor = conn.execute(
        "SELECT * FROM contacts WHERE name LIKE ?",
        (f"%{query}%",)
    )
    results = [dict(row) for row in cursor.fetchall()]
    print(json.dumps(results))
elif action == 'add':
    params = json.load(sys.stdin)
    cursor = conn.execute("INSERT INTO contacts (name, email) VALUES (?, ?)", (params['name'], params['email']))
    conn.commit()
    print(json.dumps({"id": cursor.lastrowid, "name": params['name'], "email": params['email']}))
else:
    print(f"unknown action {action}", file=sys.stderr)
    sys.exit(2)
