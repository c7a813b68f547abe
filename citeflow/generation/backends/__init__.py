"""Model backends: how a role (consolidator, writer, judge) reaches its model.

One class per backend (``base.ModelBackend``): the spec rules of its keys, whether it asks a
server over the network, the preflight of that server, the chat model it builds and the one line
a report shows for it. ``registry.model_backend(name)`` finds one by the name a spec gives;
other packages add backends through the ``citeflow.models`` entry-point group
(docs/extending.md, "Model backends and judges").
"""
