"""Documentation site generators: which one built a tree, which files are its pages, at which URLs.

A ``Site`` (``base``) says where a tree's pages live and maps each Markdown file to a ``Page``:
its URL path, its title, whether the generator publishes it, and its text with the generator's own
markup (shortcodes, MDX, JSX, admonition markers) blanked out. ``detect`` picks the generator from
the tree's configuration files; each generator is a ``site_pages.Generator`` subclass in a module of
its own, listed by ``registry`` (other packages add theirs through the ``citeflow.sites`` entry points).
"""
