import { createMachine } from 'xstate';

const turnMachine = createMachine({
  "id": "turn",
  "initial": "opening",
  "states": {
    "opening": {
      "entry": "appendTurnStart",
      "on": {
        "TURN_OPENED": "open",
        "INTERNAL_ERROR": {
          "target": "done",
          "actions": [
            {
              "type": "recordFailure"
            },
            "notifyClosed",
            {
              "type": "reportFailure",
              "params": {
                "origin": "turn"
              }
            },
            "settleReason"
          ]
        }
      }
    },
    "open": {
      "on": {
        "STEER": {
          "actions": {
            "type": "pushSteering"
          }
        },
        "INJECT": {
          "actions": {
            "type": "appendInjection"
          }
        },
        "CANCEL": {
          "target": "#turn.closing",
          "actions": [
            {
              "type": "recordCancel"
            },
            "abortTurn"
          ]
        }
      },
      "initial": "promptSubmit",
      "states": {
        "promptSubmit": {
          "always": {
            "guard": {
              "type": "seamIsEmpty",
              "params": {
                "seam": "agent/prompt-submit"
              }
            },
            "target": "step",
            "actions": [
              {
                "type": "emitDefaultDecided"
              },
              {
                "type": "recordPrompt"
              }
            ]
          },
          "invoke": {
            "id": "promptSubmit",
            "src": "promptSubmit",
            "onDone": [
              {
                "guard": "promptBlocked",
                "target": "#turn.closing",
                "actions": [
                  {
                    "type": "recordBlocked"
                  },
                  {
                    "type": "recordRejected"
                  }
                ]
              },
              {
                "target": "step",
                "actions": {
                  "type": "recordPrompt"
                }
              }
            ],
            "onError": {
              "target": "#turn.closing",
              "actions": [
                {
                  "type": "recordFailure"
                },
                {
                  "type": "reportFailure",
                  "params": {
                    "origin": "agent/prompt-submit"
                  }
                }
              ]
            }
          }
        },
        "step": {
          "entry": "beginStep",
          "initial": "drainSteering",
          "states": {
            "drainSteering": {
              "entry": [
                "recordSteering",
                "reportSteeringEnded",
                "clearSteering"
              ],
              "always": [
                {
                  "guard": "hasFailure",
                  "target": "#turn.closing"
                },
                {
                  "target": "preStep"
                }
              ]
            },
            "preStep": {
              "always": [
                {
                  "guard": "hasFailure",
                  "target": "#turn.closing"
                },
                {
                  "guard": {
                    "type": "seamIsEmpty",
                    "params": {
                      "seam": "agent/pre-step"
                    }
                  },
                  "target": "requesting"
                }
              ],
              "invoke": {
                "id": "preStep",
                "src": "preStep",
                "onDone": "requesting",
                "onError": {
                  "target": "#turn.closing",
                  "actions": [
                    {
                      "type": "recordFailure"
                    },
                    {
                      "type": "reportFailure",
                      "params": {
                        "origin": "agent/pre-step"
                      }
                    }
                  ]
                }
              }
            },
            "requesting": {
              "entry": [
                "openStep",
                "appendStepStart"
              ],
              "always": {
                "guard": "hasFailure",
                "target": "#turn.closing"
              },
              "invoke": {
                "id": "model",
                "src": "model",
                "onDone": {
                  "target": "answered",
                  "actions": [
                    {
                      "type": "acceptAnswer"
                    },
                    {
                      "type": "recordAnswer"
                    }
                  ]
                },
                "onError": {
                  "target": "#turn.open.requestError",
                  "actions": [
                    {
                      "type": "recordRequestFailure"
                    },
                    "appendStepFifo",
                    "appendStepEnd",
                    "closeStep"
                  ]
                }
              },
              "on": {
                "INJECT": {
                  "actions": {
                    "type": "pushStepFifo"
                  }
                }
              }
            },
            "answered": {
              "always": [
                {
                  "guard": "hasFailure",
                  "target": "#turn.closing"
                },
                {
                  "guard": "answerHasToolCalls",
                  "target": "tools"
                },
                {
                  "target": "postBatchSteering",
                  "actions": [
                    "appendStepFifo",
                    "clearStepFifo"
                  ]
                }
              ],
              "on": {
                "INJECT": {
                  "actions": {
                    "type": "pushStepFifo"
                  }
                }
              }
            },
            "tools": {
              "initial": "running",
              "invoke": {
                "id": "toolBatch",
                "src": "toolBatch",
                "onDone": [
                  {
                    "guard": "batchFailed",
                    "target": "#turn.closing",
                    "actions": [
                      "repairCalls",
                      {
                        "type": "recordFailure"
                      },
                      {
                        "type": "reportFailure",
                        "params": {
                          "origin": "toolBatch"
                        }
                      }
                    ]
                  },
                  {
                    "target": "postBatchSteering",
                    "actions": [
                      "appendStepFifo",
                      "clearStepFifo"
                    ]
                  }
                ],
                "onError": {
                  "target": "#turn.closing",
                  "actions": [
                    "repairCalls",
                    {
                      "type": "recordFailure"
                    },
                    {
                      "type": "reportFailure",
                      "params": {
                        "origin": "toolBatch"
                      }
                    }
                  ]
                }
              },
              "on": {
                "INJECT": {
                  "actions": {
                    "type": "pushStepFifo"
                  }
                },
                "CALL_COMMITTED": {
                  "actions": {
                    "type": "pushStepFifo"
                  }
                }
              },
              "states": {
                "running": {
                  "on": {
                    "CANCEL": {
                      "target": "draining",
                      "actions": [
                        {
                          "type": "recordCancel"
                        },
                        "abortBatch",
                        "abortTurn"
                      ]
                    }
                  }
                },
                "draining": {
                  "on": {
                    "CANCEL": {
                      "actions": [
                        {
                          "type": "recordCancel"
                        },
                        "abortTurn"
                      ]
                    }
                  }
                }
              }
            },
            "postBatchSteering": {
              "always": [
                {
                  "guard": "hasFailure",
                  "target": "#turn.closing"
                },
                {
                  "guard": "isCancelled",
                  "target": "abortedPostStep"
                },
                {
                  "target": "postStep",
                  "actions": [
                    "markSteered",
                    "recordSteering",
                    "reportSteeringEnded",
                    "clearSteering"
                  ]
                }
              ]
            },
            "postStep": {
              "always": [
                {
                  "guard": "hasFailure",
                  "target": "#turn.closing"
                },
                {
                  "guard": {
                    "type": "seamIsEmpty",
                    "params": {
                      "seam": "agent/post-step"
                    }
                  },
                  "target": "continuation",
                  "actions": [
                    "appendStepEnd",
                    "closeStep"
                  ]
                }
              ],
              "invoke": {
                "id": "postStep",
                "src": "postStep",
                "onDone": {
                  "target": "continuation",
                  "actions": [
                    "appendStepEnd",
                    "closeStep"
                  ]
                },
                "onError": {
                  "target": "#turn.closing",
                  "actions": [
                    {
                      "type": "recordFailure"
                    },
                    {
                      "type": "reportFailure",
                      "params": {
                        "origin": "agent/post-step"
                      }
                    }
                  ]
                }
              }
            },
            "abortedPostStep": {
              "always": {
                "guard": {
                  "type": "seamIsEmpty",
                  "params": {
                    "seam": "agent/post-step"
                  }
                },
                "target": "#turn.closing"
              },
              "invoke": {
                "id": "abortedPostStep",
                "src": "postStep",
                "onDone": "#turn.closing",
                "onError": "#turn.closing"
              },
              "after": {
                "cancelGrace": "#turn.closing"
              }
            },
            "continuation": {
              "always": [
                {
                  "guard": "hasFailure",
                  "target": "#turn.closing"
                },
                {
                  "guard": {
                    "type": "seamIsEmpty",
                    "params": {
                      "seam": "agent/turn-continuation"
                    }
                  },
                  "target": "turnStop",
                  "actions": [
                    {
                      "type": "emitDefaultDecided"
                    },
                    {
                      "type": "applyContinuation"
                    }
                  ]
                }
              ],
              "invoke": {
                "id": "continuation",
                "src": "continuation",
                "onDone": {
                  "target": "turnStop",
                  "actions": [
                    {
                      "type": "applyContinuation"
                    },
                    "announceContinueReason",
                    "reportSteeringHeld"
                  ]
                },
                "onError": {
                  "target": "#turn.closing",
                  "actions": [
                    {
                      "type": "recordFailure"
                    },
                    {
                      "type": "reportFailure",
                      "params": {
                        "origin": "agent/turn-continuation"
                      }
                    }
                  ]
                }
              }
            },
            "turnStop": {
              "always": [
                {
                  "guard": "hasFailure",
                  "target": "#turn.closing"
                },
                {
                  "guard": {
                    "type": "seamIsEmpty",
                    "params": {
                      "seam": "agent/turn-stop"
                    }
                  },
                  "target": "deciding"
                }
              ],
              "invoke": {
                "id": "turnStop",
                "src": "turnStop",
                "onDone": [
                  {
                    "guard": "stopReturned",
                    "target": "#turn.closing",
                    "actions": [
                      {
                        "type": "recordStop"
                      },
                      "discardSteering",
                      "reportSteeringEnded",
                      "clearSteering"
                    ]
                  },
                  {
                    "target": "deciding"
                  }
                ],
                "onError": {
                  "target": "#turn.closing",
                  "actions": [
                    {
                      "type": "recordFailure"
                    },
                    {
                      "type": "reportFailure",
                      "params": {
                        "origin": "agent/turn-stop"
                      }
                    }
                  ]
                }
              }
            },
            "deciding": {
              "always": [
                {
                  "guard": "hasFailure",
                  "target": "#turn.closing"
                },
                {
                  "guard": "stepCapReached",
                  "target": "#turn.closing",
                  "actions": [
                    "recordMaxSteps",
                    "discardContinueReason",
                    "reportContinueReasonEnded",
                    "dropContinueReason"
                  ]
                },
                {
                  "guard": "shouldContinue",
                  "target": "#turn.open.step",
                  "reenter": true
                },
                {
                  "target": "#turn.closing"
                }
              ]
            }
          }
        },
        "requestError": {
          "always": [
            {
              "guard": "hasFailure",
              "target": "#turn.closing"
            },
            {
              "guard": {
                "type": "seamIsEmpty",
                "params": {
                  "seam": "agent/request-error"
                }
              },
              "target": "#turn.closing",
              "actions": [
                {
                  "type": "emitDefaultDecided",
                  "params": {
                    "seam": "agent/request-error",
                    "decision": {
                      "action": "fail"
                    }
                  }
                },
                "failRequest",
                {
                  "type": "reportFailure",
                  "params": {
                    "origin": "model"
                  }
                }
              ]
            }
          ],
          "invoke": {
            "id": "requestError",
            "src": "requestError",
            "onDone": [
              {
                "guard": "retryAllowed",
                "target": "step"
              },
              {
                "target": "#turn.closing",
                "actions": [
                  "failRequest",
                  {
                    "type": "reportFailure",
                    "params": {
                      "origin": "model"
                    }
                  }
                ]
              }
            ],
            "onError": {
              "target": "#turn.closing",
              "actions": [
                {
                  "type": "reportListenerFailure"
                },
                "failRequest",
                {
                  "type": "reportFailure",
                  "params": {
                    "origin": "model"
                  }
                }
              ]
            }
          }
        }
      }
    },
    "closing": {
      "entry": [
        "closeOpenStep",
        "closeStep",
        "settleReason",
        "appendTurnEnd",
        "notifyClosed"
      ],
      "always": "flushing"
    },
    "flushing": {
      "invoke": {
        "id": "flushLog",
        "src": "flushLog",
        "onDone": "done",
        "onError": {
          "target": "done",
          "actions": {
            "type": "reportFlushFailure"
          }
        }
      },
      "on": {
        "STEER": {
          "actions": {
            "type": "pushSteering"
          }
        },
        "INJECT": {
          "actions": {
            "type": "holdInjection"
          }
        },
        "CANCEL": {
          "actions": {
            "type": "dropPendingSteering"
          }
        }
      }
    },
    "done": {
      "type": "final"
    }
  }
});
