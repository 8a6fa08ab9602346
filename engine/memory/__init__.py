"""Memory in namespaces (issue 18; Creo's shared vs private state, Aspect's context namespaces).

- store.py   get / write / merge / delete / list on a namespace of a scope (a person, a run),
             stored in the database (memorynamespace), each key with where it came from
- access.py  what one agent of a run may read: the run's shared namespace and its own private
             one, never another agent's; the block it is given (recorded with its calls)
- read.py    the Memory panel's read model
"""
