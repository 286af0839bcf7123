import { createMachine } from 'xstate';

const agentMachine = createMachine({
  "id": "agent",
  "on": {
    "STORE_FAILED": {
      "actions": {
        "type": "markStoreFailed"
      }
    }
  },
  "initial": "starting",
  "states": {
    "starting": {
      "initial": "check",
      "states": {
        "check": {
          "always": [
            {
              "guard": "storeFailed",
              "target": "#agent.failed"
            },
            {
              "guard": "and(sessionStartIsEmpty, isSuspended)",
              "target": "#agent.suspended"
            },
            {
              "guard": "and(sessionStartIsEmpty, hasWakingItem)",
              "target": "#agent.running"
            },
            {
              "guard": "sessionStartIsEmpty",
              "target": "#agent.idle"
            },
            "running"
          ]
        },
        "running": {
          "always": {
            "guard": "storeFailed",
            "target": "#agent.failed"
          },
          "invoke": {
            "id": "sessionStart",
            "src": "sessionStart",
            "onDone": "#agent.ready",
            "onError": {
              "target": "#agent.ready",
              "actions": {
                "type": "reportSessionStartFailure"
              }
            }
          },
          "after": {
            "sessionStartTimeout": {
              "target": "#agent.ready",
              "actions": "reportLateSessionStart"
            }
          },
          "on": {
            "CANCEL": [
              {
                "guard": "canDropQueue",
                "target": "#agent.ready",
                "actions": [
                  {
                    "type": "notifyCancelRequested"
                  },
                  {
                    "type": "recordDiscard"
                  },
                  {
                    "type": "discardItems"
                  },
                  "dropQueue"
                ]
              },
              {
                "target": "#agent.ready",
                "actions": {
                  "type": "notifyCancelRequested"
                }
              }
            ]
          }
        }
      },
      "on": {
        "SEND": {
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        },
        "QUEUE": {
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        },
        "STEER": {
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        },
        "INJECT": {
          "actions": {
            "type": "writeInjectionTurn"
          }
        },
        "CANCEL": {
          "guard": "canDropQueue",
          "actions": [
            {
              "type": "notifyCancelRequested"
            },
            {
              "type": "recordDiscard"
            },
            {
              "type": "discardItems"
            },
            "dropQueue"
          ]
        },
        "DISPOSE": {
          "target": "disposing",
          "actions": {
            "type": "setKeepInboxOnDispose"
          }
        }
      }
    },
    "ready": {
      "always": [
        {
          "guard": "storeFailed",
          "target": "#agent.failed"
        },
        {
          "guard": "isSuspended",
          "target": "suspended"
        },
        {
          "guard": "hasWakingItem",
          "target": "running"
        },
        {
          "target": "idle"
        }
      ]
    },
    "suspended": {
      "always": [
        {
          "guard": "storeFailed",
          "target": "#agent.failed"
        },
        {
          "guard": "suspensionAnswered",
          "target": "#agent.running.inTurn",
          "actions": {
            "type": "openResumeScope",
            "params": {
              "cancel": null
            }
          }
        }
      ],
      "entry": [
        {
          "type": "announceStatus",
          "params": {
            "status": "suspended"
          }
        },
        {
          "type": "setStatus",
          "params": {
            "status": "suspended"
          }
        }
      ],
      "on": {
        "SEND": {
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        },
        "QUEUE": {
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        },
        "STEER": {
          "actions": [
            {
              "type": "notifyEnqueue"
            },
            {
              "type": "holdSteering"
            }
          ]
        },
        "INJECT": {
          "actions": {
            "type": "appendHeldContext"
          }
        },
        "RESUME": {
          "target": "#agent.running.inTurn",
          "actions": {
            "type": "openResumeScope",
            "params": {
              "cancel": null
            }
          }
        },
        "CANCEL": {
          "target": "#agent.running.inTurn",
          "actions": [
            {
              "type": "notifyCancelRequested"
            },
            {
              "type": "recordDiscard"
            },
            {
              "type": "deferQueueDiscard"
            },
            {
              "type": "openResumeScope"
            }
          ]
        },
        "DISPOSE": {
          "target": "disposing",
          "actions": [
            {
              "type": "setKeepInboxOnDispose"
            },
            {
              "type": "recordDiscard"
            },
            {
              "type": "dropSuspendedSteering"
            }
          ]
        }
      }
    },
    "idle": {
      "always": {
        "guard": "storeFailed",
        "target": "#agent.failed"
      },
      "entry": [
        {
          "type": "announceStatus",
          "params": {
            "status": "idle"
          }
        },
        {
          "type": "setStatus",
          "params": {
            "status": "idle"
          }
        }
      ],
      "on": {
        "SEND": {
          "target": "running",
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        },
        "QUEUE": {
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        },
        "STEER": {
          "target": "running",
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        },
        "INJECT": {
          "actions": {
            "type": "writeInjectionTurn"
          }
        },
        "CANCEL": {
          "guard": "canDropQueue",
          "actions": [
            {
              "type": "notifyCancelRequested"
            },
            {
              "type": "recordDiscard"
            },
            {
              "type": "discardItems"
            },
            "dropQueue"
          ]
        },
        "DISPOSE": {
          "target": "disposing",
          "actions": {
            "type": "setKeepInboxOnDispose"
          }
        }
      }
    },
    "running": {
      "always": {
        "guard": "storeFailed",
        "target": "#agent.failed"
      },
      "entry": [
        {
          "type": "announceStatus",
          "params": {
            "status": "running"
          }
        },
        {
          "type": "setStatus",
          "params": {
            "status": "running"
          }
        }
      ],
      "initial": "claiming",
      "on": {
        "SEND": {
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        },
        "QUEUE": {
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        },
        "STEER": {
          "actions": [
            {
              "type": "enqueue"
            },
            {
              "type": "notifyEnqueue"
            }
          ]
        }
      },
      "states": {
        "claiming": {
          "entry": [
            "openTurnScope",
            "claimHead",
            "notifyDequeue"
          ],
          "always": "inTurn"
        },
        "inTurn": {
          "invoke": {
            "id": "turn",
            "src": "turn",
            "onDone": [
              {
                "guard": "isDisposing",
                "target": "#agent.disposing",
                "actions": [
                  "closeTurnScope",
                  {
                    "type": "recordTurnDiscards"
                  },
                  {
                    "type": "collectTurnOutput"
                  },
                  "writeHeldInjections",
                  "clearHeld",
                  "clearTurn"
                ]
              },
              {
                "target": "settling",
                "actions": [
                  "closeTurnScope",
                  {
                    "type": "recordTurnDiscards"
                  },
                  {
                    "type": "collectTurnOutput"
                  },
                  "writeHeldInjections",
                  "clearHeld",
                  {
                    "type": "discardItems"
                  },
                  "clearPendingDiscard",
                  "clearTurn"
                ]
              }
            ],
            "onError": [
              {
                "guard": "isDisposing",
                "target": "#agent.disposing",
                "actions": [
                  "closeTurnScope",
                  {
                    "type": "repairTurn"
                  },
                  "discardTurnSteering",
                  "clearTurn"
                ]
              },
              {
                "target": "settling",
                "actions": [
                  "closeTurnScope",
                  {
                    "type": "repairTurn"
                  },
                  "discardTurnSteering",
                  {
                    "type": "discardItems"
                  },
                  "clearPendingDiscard",
                  "clearTurn"
                ]
              }
            ]
          },
          "on": {
            "TURN_SUSPENDED": [
              {
                "guard": "isDisposing",
                "target": "#agent.disposing",
                "actions": [
                  "closeTurnScope",
                  "clearTurn"
                ]
              },
              {
                "target": "#agent.suspended",
                "actions": [
                  "closeTurnScope",
                  "clearTurn",
                  {
                    "type": "setSuspension",
                    "params": {
                      "suspension": "waiting"
                    }
                  }
                ]
              }
            ],
            "STEERING_HELD": {
              "actions": {
                "type": "holdSteering"
              }
            },
            "STEERING_ENDED": {
              "actions": {
                "type": "endSteering"
              }
            }
          },
          "initial": "open",
          "states": {
            "open": {
              "on": {
                "TURN_CLOSED": "closed",
                "STEER": {
                  "actions": [
                    {
                      "type": "notifyEnqueue"
                    },
                    {
                      "type": "holdSteering"
                    },
                    "forwardToTurn"
                  ]
                },
                "INJECT": {
                  "actions": "forwardToTurn"
                },
                "CANCEL": {
                  "actions": [
                    {
                      "type": "notifyCancelRequested"
                    },
                    {
                      "type": "recordDiscard"
                    },
                    {
                      "type": "deferQueueDiscard"
                    },
                    "forwardToTurn"
                  ]
                },
                "DISPOSE": {
                  "target": "disposing",
                  "actions": {
                    "type": "setKeepInboxOnDispose"
                  }
                }
              }
            },
            "closed": {
              "on": {
                "INJECT": {
                  "actions": {
                    "type": "holdInjection"
                  }
                },
                "CANCEL": {
                  "guard": "canDropQueue",
                  "actions": [
                    {
                      "type": "notifyCancelRequested"
                    },
                    {
                      "type": "recordDiscard"
                    },
                    {
                      "type": "deferQueueDiscard",
                      "params": {
                        "keepInbox": false
                      }
                    },
                    "markDiscardLeftover"
                  ]
                },
                "DISPOSE": {
                  "target": "disposing",
                  "actions": {
                    "type": "setKeepInboxOnDispose"
                  }
                }
              }
            },
            "disposing": {
              "entry": [
                "markDisposing",
                "cancelTurnForDisposal"
              ],
              "on": {
                "INJECT": {
                  "actions": {
                    "type": "holdInjection"
                  }
                }
              }
            }
          }
        },
        "settling": {
          "always": [
            {
              "guard": "storeFailed",
              "target": "#agent.failed"
            },
            {
              "guard": "hasWakingItem",
              "target": "claiming"
            },
            {
              "target": "#agent.idle"
            }
          ]
        }
      }
    },
    "disposing": {
      "always": {
        "guard": "storeFailed",
        "target": "#agent.failed"
      },
      "entry": [
        {
          "type": "recordDiscard"
        },
        {
          "type": "discardItems"
        },
        "dropQueue",
        "clearPendingDiscard",
        {
          "type": "announceStatus",
          "params": {
            "status": "disposed"
          }
        },
        {
          "type": "setStatus",
          "params": {
            "status": "disposed"
          }
        },
        "startSettle"
      ],
      "on": {
        "settle.done": "disposed",
        "settle.error": "disposed",
        "INJECT": {
          "actions": {
            "type": "writeInjectionTurn"
          }
        }
      }
    },
    "disposed": {
      "type": "final"
    },
    "failed": {
      "type": "final",
      "entry": [
        "closeTurnScope",
        {
          "type": "announceStatus",
          "params": {
            "status": "failed"
          }
        },
        {
          "type": "setStatus",
          "params": {
            "status": "failed"
          }
        }
      ]
    }
  }
});
