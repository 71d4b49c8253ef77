"""What is stored, pure: the stored records checked and merged (`records`), the workspace in a
key-value store with revisions, merges and backups (`workspace`), and what a page keeps: the fights
with their merge bases, the collections, the live room (`keeper`). The browser's store is
web/page/dom.py's; the tests use a `MemoryStore`."""
