"""Durable tasks: the records of long-running tool calls (the MCP Tasks extension) and the stores that keep them.

The map of this package:

    record.py       ``TaskRecord``: one task as every store keeps it (JSON in, JSON out), its statuses
    transitions.py  the state machine, as pure functions of (record, now): each decision is made here, once
    store.py        the ``TaskStore`` protocol (create, get, update, claim, expired leases, purge, publish,
                    subscribe, shared documents)
    connect.py      ``open_store(url)``: memory://, sqlite:///path/tasks.db, redis://host:6379/0
    operations.py   what a server and a worker do to a task (claim, heartbeat, ask, answer, finish, cancel,
                    reap), each one ``transitions`` applied atomically through a store
    fanout.py       in-process delivery of published messages to subscribers on any event loop
    memory_store.py the default store: one process, nothing to install
    sqlite_store.py the standard library's sqlite3 in WAL mode: tasks survive a restart, several processes on
                    one machine share them
    redis_store.py  Redis through redis-py's asyncio client (the ``redis`` extra): any replica on any machine

A store only stores: it reads, writes atomically, keeps the queue of runnable tasks and tells subscribers. What a
change means (who may claim, when a lease is lost, what ``tasks/update`` keeps) is ``transitions``'s alone, so the
three stores cannot disagree about it.

Serving tasks, on top of the stores:

    config.py       ``TaskConfig``: the store URL, workers, TTL, poll interval, lease, attempts (``task_*`` options)
    service.py      ``TaskService``: one registry's tasks, started and stopped with ``registry.running()``
    host.py         the registry as this package sees it (protocols: nothing here imports the registry)
    wire.py         the task handle and the task, in both protocol generations; whether a call asked for a task
    calls.py        the call pipeline's task branch: a call becomes a task (or hands itself over to one)
    worker.py       runs tasks: the ``Call`` rebuilt from the record, driven by the pipeline's own ``drive``
    methods.py      ``tasks/get``, ``tasks/update``, ``tasks/cancel`` (2025-11-25: ``tasks/result``, ``tasks/list``)
                    and the task feed of a ``subscriptions/listen`` stream
    replicate.py    one tool list for every replica sharing a store

``import mcptools`` imports nothing here: the pipeline and the engine import it lazily, for task tools only.
"""
